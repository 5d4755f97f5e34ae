package dev.byodt.runtime;

/**
 * Element types a tensor can hold at byodt's boundary (graph inputs, outputs, weights, data files).
 * The numeric code is ONNX's TensorProto.DataType, so files and models map onto these directly.
 *
 * <p>Inside a compiled model every tensor is one of four {@linkplain #computed() computed} types: real-valued
 * tensors, whatever their declared float type (8- and 4-bit floats included), are float32 (the datatype of --dtype then takes them over),
 * integers are int32 when every value of their type fits, else int64, and bool is bool. Values convert at
 * the boundary ({@link Tensor#convertedTo}).
 */
public enum ElementType {
    FLOAT32(1, 32, "float32"),
    INT32(6, 32, "int32"),
    INT64(7, 64, "int64"),
    BOOL(9, 8, "bool"),
    INT8(3, 8, "int8"),
    UINT8(2, 8, "uint8"),
    INT16(5, 16, "int16"),
    UINT16(4, 16, "uint16"),
    UINT32(12, 32, "uint32"),
    UINT64(13, 64, "uint64"),
    FLOAT16(10, 16, "float16"),
    BFLOAT16(16, 16, "bfloat16"),
    DOUBLE(11, 64, "double"),
    FLOAT8E4M3FN(17, "float8e4m3fn", new MinifloatFormat(4, 3, MinifloatFormat.Specials.FN, false)),
    FLOAT8E4M3FNUZ(18, "float8e4m3fnuz", new MinifloatFormat(4, 3, MinifloatFormat.Specials.FNUZ, false)),
    FLOAT8E5M2(19, "float8e5m2", MinifloatFormat.ieee(5, 2)),
    FLOAT8E5M2FNUZ(20, "float8e5m2fnuz", new MinifloatFormat(5, 2, MinifloatFormat.Specials.FNUZ, false)),
    FLOAT4E2M1(23, "float4e2m1", new MinifloatFormat(2, 1, MinifloatFormat.Specials.NONE, false)),
    FLOAT8E8M0(24, "float8e8m0", new MinifloatFormat(8, 0, MinifloatFormat.Specials.FN, true)),
    UINT4(21, 4, "uint4"),
    INT4(22, 4, "int4"),
    UINT2(25, 2, "uint2"),
    INT2(26, 2, "int2");

    private final int onnxCode;
    private final int bits;
    private final String displayName;
    private final MinifloatFormat minifloat;
    private final MinifloatCast boundaryCast;

    ElementType(int onnxCode, int bits, String displayName) {
        this(onnxCode, bits, displayName, null);
    }

    ElementType(int onnxCode, String displayName, MinifloatFormat minifloat) {
        this(onnxCode, minifloat.bits(), displayName, minifloat);
    }

    ElementType(int onnxCode, int bits, String displayName, MinifloatFormat minifloat) {
        this.onnxCode = onnxCode;
        this.bits = bits;
        this.displayName = displayName;
        this.minifloat = minifloat;
        this.boundaryCast = minifloat == null ? null : new MinifloatCast(minifloat, false, MinifloatCast.E8m0Rounding.NEAREST);
    }

    public int onnxCode() { return onnxCode; }

    /**
     * Bytes per element in a {@link Tensor}: the 4- and 2-bit types take a byte each there, and are packed only in
     * files ({@link #bits}).
     */
    public int byteSize() { return Math.max(bits / Byte.SIZE, 1); }

    /** Bits per element as ONNX stores the type: two 4-bit or four 2-bit elements share a byte, low bits first. */
    public int bits() { return bits; }

    /** Whether elements share bytes in ONNX's files (the 4- and 2-bit types). */
    public boolean isPacked() { return bits < Byte.SIZE; }

    /** The format of an 8- or 4-bit float type (float8e4m3fn ... float8e8m0), or null. */
    public MinifloatFormat minifloat() { return minifloat; }

    /**
     * How values become an 8- or 4-bit float type where byodt stores them in their declared type (outputs, data it
     * writes): to nearest, ties to even (float8e8m0 by round_mode "nearest"), overflowing as float16's conversion
     * does, to infinity where the format has one and to NaN where it has not (float4e2m1, which has neither,
     * saturates). A value a Cast rounded inside the model is held exactly. Null for other types.
     */
    public MinifloatCast boundaryCast() { return boundaryCast; }

    /** A real-valued type: float32, float16, bfloat16, double and the 8- and 4-bit floats. */
    public boolean isReal() {
        return this == FLOAT32 || this == FLOAT16 || this == BFLOAT16 || this == DOUBLE || minifloat != null;
    }

    /** An integer type, signed or unsigned (bool is neither real nor integer). */
    public boolean isInteger() { return !isReal() && this != BOOL; }

    public boolean isUnsigned() {
        return this == UINT8 || this == UINT16 || this == UINT32 || this == UINT64 || this == UINT4 || this == UINT2;
    }

    /**
     * The type byodt computes a tensor of this declared type in. uint64 is held in int64, so its values from
     * 2^63 on wrap to negative numbers inside the model (and back at the boundary).
     */
    public ElementType computed() {
        return switch (this) {
            case FLOAT32, FLOAT16, BFLOAT16, DOUBLE, FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT4E2M1,
                 FLOAT8E8M0 -> FLOAT32;
            case INT8, UINT8, INT16, UINT16, INT32, INT4, UINT4, INT2, UINT2 -> INT32;
            case UINT32, INT64, UINT64 -> INT64;
            case BOOL -> BOOL;
        };
    }

    /** The bits of an integer type (8 for int8 and uint8, 4 for int4 ...); 64 for int64 and uint64. */
    public int integerBits() {
        if (!isInteger()) throw new IllegalStateException(this + " is not an integer type");
        return bits;
    }

    /** The element type for an ONNX data type code, or null when byodt does not support it. */
    public static ElementType fromOnnx(int code) {
        for (ElementType t : values()) {
            if (t.onnxCode == code) return t;
        }
        return null;
    }

    /** ONNX's name for a data type code, for error messages about types byodt does not support. */
    public static String onnxName(int code) {
        String[] names = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
            "bool", "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16",
            "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4", "float4e2m1",
            "float8e8m0", "uint2", "int2"};
        return code >= 0 && code < names.length ? names[code] : "type " + code;
    }

    /** The list of supported types, for the one-line errors about the others. */
    public static String supportedList() {
        StringBuilder list = new StringBuilder();
        for (ElementType t : values()) list.append(list.isEmpty() ? "" : ", ").append(t);
        return list.toString();
    }

    @Override
    public String toString() { return displayName; }
}
