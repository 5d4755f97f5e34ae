package dev.byodt.compiler.kernel;

import dev.byodt.runtime.Shapes;

/**
 * A tensor as kernels see it: flat, row-major storage of elements of one scalar type. Buffers are compared
 * by identity; the name (the ONNX tensor name) is for reading the IR and for error messages.
 */
public final class Buffer {
    private final String name;
    private final ScalarType elementType;
    private final long[] shape;
    private final Buffer storage;

    public Buffer(String name, ScalarType elementType, long[] shape) {
        this(name, elementType, shape, null);
    }

    private Buffer(String name, ScalarType elementType, long[] shape, Buffer storage) {
        this.name = name;
        this.elementType = elementType;
        this.shape = shape.clone();
        this.storage = storage == null ? this : storage;
    }

    /**
     * The same memory seen as {@code elements} elements of a wider integer type (the P extension's packed
     * words: four I16 elements as one I64): loads and stores of the view touch the memory of {@link #storage()}.
     */
    public Buffer view(ScalarType type, long elements) { return new Buffer(name, type, new long[]{elements}, storage); }

    /** The buffer whose memory this one is: itself, unless it is a {@link #view}. */
    public Buffer storage() { return storage; }

    public String name() { return name; }

    public ScalarType elementType() { return elementType; }

    public long[] shape() { return shape.clone(); }

    public int rank() { return shape.length; }

    public long dim(int axis) { return shape[axis]; }

    public long size() { return Shapes.elementCount(shape, name); }

    /** The same tensor with another element type: what datatype lowering makes of a REAL buffer. */
    public Buffer retyped(ScalarType type) { return new Buffer(name, type, shape); }

    @Override
    public String toString() { return name + ":" + elementType + "[" + Shapes.format(shape) + "]"; }
}
