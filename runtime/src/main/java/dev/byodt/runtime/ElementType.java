package dev.byodt.runtime;

/**
 * Element types a tensor can hold at byodt's boundary (graph inputs, outputs, weights, data files).
 * The numeric code is ONNX's TensorProto.DataType, so files and models map onto these directly.
 *
 * <p>Inside a compiled model every tensor is one of four {@linkplain #computed() computed} types: real-valued
 * tensors, whatever their declared float type, are float32 (the datatype of --dtype then takes them over),
 * integers are int32 when every value of their type fits, else int64, and bool is bool. Values convert at
 * the boundary ({@link Tensor#convertedTo}).
 */
public enum ElementType {
    FLOAT32(1, 4, "float32"),
    INT32(6, 4, "int32"),
    INT64(7, 8, "int64"),
    BOOL(9, 1, "bool"),
    INT8(3, 1, "int8"),
    UINT8(2, 1, "uint8"),
    INT16(5, 2, "int16"),
    UINT16(4, 2, "uint16"),
    UINT32(12, 4, "uint32"),
    UINT64(13, 8, "uint64"),
    FLOAT16(10, 2, "float16"),
    BFLOAT16(16, 2, "bfloat16"),
    DOUBLE(11, 8, "double");

    private final int onnxCode;
    private final int byteSize;
    private final String displayName;

    ElementType(int onnxCode, int byteSize, String displayName) {
        this.onnxCode = onnxCode;
        this.byteSize = byteSize;
        this.displayName = displayName;
    }

    public int onnxCode() { return onnxCode; }

    public int byteSize() { return byteSize; }

    /** A real-valued type: float32, float16, bfloat16 or double. */
    public boolean isReal() { return this == FLOAT32 || this == FLOAT16 || this == BFLOAT16 || this == DOUBLE; }

    /** An integer type, signed or unsigned (bool is neither real nor integer). */
    public boolean isInteger() { return !isReal() && this != BOOL; }

    public boolean isUnsigned() { return this == UINT8 || this == UINT16 || this == UINT32 || this == UINT64; }

    /**
     * The type byodt computes a tensor of this declared type in. uint64 is held in int64, so its values from
     * 2^63 on wrap to negative numbers inside the model (and back at the boundary).
     */
    public ElementType computed() {
        return switch (this) {
            case FLOAT32, FLOAT16, BFLOAT16, DOUBLE -> FLOAT32;
            case INT8, UINT8, INT16, UINT16, INT32 -> INT32;
            case UINT32, INT64, UINT64 -> INT64;
            case BOOL -> BOOL;
        };
    }

    /** The bits of an integer type (8 for int8 and uint8, ...); 64 for int64 and uint64. */
    public int integerBits() {
        if (!isInteger()) throw new IllegalStateException(this + " is not an integer type");
        return byteSize * Byte.SIZE;
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
