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

    /** A real element as a float (float16, bfloat16 and double converted), or any other element's value. */
    public float getFloat(long i) {
        return type == ElementType.FLOAT32 ? data.getAtIndex(ValueLayout.JAVA_FLOAT, i) : (float) getDouble(i);
    }

    public void setFloat(long i, float v) {
        if (type == ElementType.FLOAT32) data.setAtIndex(ValueLayout.JAVA_FLOAT, i, v);
        else setDouble(i, v);
    }

    /**
     * An integer or bool element widened to long (unsigned types zero-extended, bool 0 or 1); a real element
     * truncated toward zero.
     */
    public long getLong(long i) {
        return switch (type) {
            case INT64, UINT64 -> data.getAtIndex(ValueLayout.JAVA_LONG, i);
            case INT32 -> data.getAtIndex(ValueLayout.JAVA_INT, i);
            case UINT32 -> Integer.toUnsignedLong(data.getAtIndex(ValueLayout.JAVA_INT, i));
            case INT16 -> data.getAtIndex(ValueLayout.JAVA_SHORT, i);
            case UINT16 -> Short.toUnsignedLong(data.getAtIndex(ValueLayout.JAVA_SHORT, i));
            case INT8, INT4, INT2 -> data.get(ValueLayout.JAVA_BYTE, i);
            case UINT8, UINT4, UINT2 -> Byte.toUnsignedLong(data.get(ValueLayout.JAVA_BYTE, i));
            case BOOL -> data.get(ValueLayout.JAVA_BYTE, i) != 0 ? 1 : 0;
            case FLOAT32, FLOAT16, BFLOAT16, DOUBLE, FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT4E2M1,
                 FLOAT8E8M0 -> (long) getDouble(i);
        };
    }

    /**
     * Stores an integer: the low bits for an integer type (a 4- or 2-bit one held in a byte as its value, sign- or
     * zero-extended), v != 0 for bool, the value for a real type.
     */
    public void setLong(long i, long v) {
        switch (type) {
            case INT64, UINT64 -> data.setAtIndex(ValueLayout.JAVA_LONG, i, v);
            case INT32, UINT32 -> data.setAtIndex(ValueLayout.JAVA_INT, i, (int) v);
            case INT16, UINT16 -> data.setAtIndex(ValueLayout.JAVA_SHORT, i, (short) v);
            case INT8, UINT8 -> data.set(ValueLayout.JAVA_BYTE, i, (byte) v);
            case INT4, INT2 -> data.set(ValueLayout.JAVA_BYTE, i, (byte) (v << (Long.SIZE - type.bits()) >> (Long.SIZE - type.bits())));
            case UINT4, UINT2 -> data.set(ValueLayout.JAVA_BYTE, i, (byte) (v & ((1 << type.bits()) - 1)));
            case BOOL -> data.set(ValueLayout.JAVA_BYTE, i, (byte) (v != 0 ? 1 : 0));
            case FLOAT32, FLOAT16, BFLOAT16, DOUBLE, FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT4E2M1,
                 FLOAT8E8M0 -> setDouble(i, v);
        }
    }

    /** Any element as a double, for reports and comparisons (uint64 as its unsigned value). */
    public double getDouble(long i) {
        return switch (type) {
            case FLOAT32 -> data.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            case DOUBLE -> data.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
            case FLOAT16 -> Float.float16ToFloat(data.getAtIndex(ValueLayout.JAVA_SHORT, i));
            case BFLOAT16 -> Float.intBitsToFloat(data.getAtIndex(ValueLayout.JAVA_SHORT, i) << 16);
            case FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT4E2M1, FLOAT8E8M0 ->
                type.minifloat().value(Byte.toUnsignedInt(data.get(ValueLayout.JAVA_BYTE, i)));
            case UINT64 -> {
                long bits = data.getAtIndex(ValueLayout.JAVA_LONG, i);
                yield bits >= 0 ? bits : (bits >>> 1 | (bits & 1)) * 2.0;
            }
            default -> getLong(i);
        };
    }

    /**
     * Stores a value, rounded to nearest even for the narrower real types (the 8- and 4-bit floats as
     * {@link ElementType#boundaryCast()} says); for an integer type truncated toward zero and wrapped to its
     * bits, for bool v != 0 (NaN is true, as in ONNX's Cast).
     */
    public void setDouble(long i, double v) {
        switch (type) {
            case FLOAT32 -> data.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v);
            case DOUBLE -> data.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
            case FLOAT16 -> data.setAtIndex(ValueLayout.JAVA_SHORT, i, Float.floatToFloat16((float) v));
            case BFLOAT16 -> data.setAtIndex(ValueLayout.JAVA_SHORT, i, Bfloat16.fromFloat((float) v));
            case FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT4E2M1, FLOAT8E8M0 ->
                data.set(ValueLayout.JAVA_BYTE, i, (byte) type.boundaryCast().encode(v));
            case BOOL -> setLong(i, v != 0 ? 1 : 0);
            default -> setLong(i, (long) v);
        }
    }

    /**
     * This tensor's values in another element type: what crosses the boundary between a model's declared
     * types and the {@linkplain ElementType#computed() computed} ones, and what comparisons with expected
     * data of a declared type need. Integers and bools keep their value (wrapped to a narrower integer
     * type's bits), reals round to nearest even, reals become integers by truncation toward zero.
     */
    public Tensor convertedTo(ElementType to) {
        if (to == type) return this;
        Tensor out = zeros(to, shape);
        boolean exactIntegers = !type.isReal() && !to.isReal();
        for (long i = 0; i < elementCount(); i++) {
            if (exactIntegers) out.setLong(i, getLong(i));
            else out.setDouble(i, getDouble(i));
        }
        return out;
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
