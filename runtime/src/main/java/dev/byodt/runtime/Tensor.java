package dev.byodt.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A dense row-major tensor in off-heap memory, so compiled code reads and writes it in place.
 * Element access is by flat index; the shape is static.
 */
public final class Tensor {
    private final ElementType type;
    private final long[] shape;
    private final MemorySegment data;

    public Tensor(ElementType type, long[] shape, MemorySegment data) {
        long bytes = Math.multiplyExact(Shapes.elementCount(shape, "tensor"), (long) type.byteSize());
        if (data.byteSize() != bytes) {
            throw new IllegalArgumentException("segment of " + data.byteSize() + " bytes for " + bytes + " bytes of data");
        }
        this.type = type;
        this.shape = shape.clone();
        this.data = data;
    }

    /** A zero-filled tensor whose memory lives as long as the tensor is reachable. */
    public static Tensor zeros(ElementType type, long[] shape) {
        return zeros(type, shape, Arena.ofAuto());
    }

    public static Tensor zeros(ElementType type, long[] shape, Arena arena) {
        long bytes = MemoryLimit.requireTensor(shape, type.byteSize(), "a " + type + " tensor");
        return new Tensor(type, shape, arena.allocate(Math.max(bytes, 1), 64).asSlice(0, bytes));
    }

    public static Tensor ofFloats(long[] shape, float[] values) {
        Tensor t = zeros(ElementType.FLOAT32, shape);
        MemorySegment.copy(values, 0, t.data, ValueLayout.JAVA_FLOAT, 0, values.length);
        return t;
    }

    public static Tensor ofLongs(long[] shape, long[] values) {
        Tensor t = zeros(ElementType.INT64, shape);
        MemorySegment.copy(values, 0, t.data, ValueLayout.JAVA_LONG, 0, values.length);
        return t;
    }

    public ElementType type() { return type; }

    public long[] shape() { return shape.clone(); }

    public int rank() { return shape.length; }

    public long elementCount() { return data.byteSize() / type.byteSize(); }

    public MemorySegment data() { return data; }

    public float getFloat(long i) { return data.getAtIndex(ValueLayout.JAVA_FLOAT, i); }

    public void setFloat(long i, float v) { data.setAtIndex(ValueLayout.JAVA_FLOAT, i, v); }

    /** An integer element widened to long (int32 and int64 tensors). */
    public long getLong(long i) {
        return switch (type) {
            case INT64 -> data.getAtIndex(ValueLayout.JAVA_LONG, i);
            case INT32 -> data.getAtIndex(ValueLayout.JAVA_INT, i);
            case FLOAT32 -> (long) getFloat(i);
        };
    }

    public void setLong(long i, long v) {
        switch (type) {
            case INT64 -> data.setAtIndex(ValueLayout.JAVA_LONG, i, v);
            case INT32 -> data.setAtIndex(ValueLayout.JAVA_INT, i, (int) v);
            case FLOAT32 -> setFloat(i, v);
        }
    }

    /** Any element as a double, for reports and comparisons. */
    public double getDouble(long i) {
        return type == ElementType.FLOAT32 ? getFloat(i) : getLong(i);
    }

    public float[] toFloatArray() { return data.toArray(ValueLayout.JAVA_FLOAT); }

    public long[] toLongArray() {
        long[] out = new long[(int) elementCount()];
        for (int i = 0; i < out.length; i++) out[i] = getLong(i);
        return out;
    }

    @Override
    public String toString() { return type + "[" + Shapes.format(shape) + "]"; }
}
