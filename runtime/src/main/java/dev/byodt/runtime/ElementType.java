package dev.byodt.runtime;

/**
 * Element types a tensor can hold at byodt's boundary (graph inputs, outputs, weights, data files).
 * The numeric code is ONNX's TensorProto.DataType, so files and models map onto these directly.
 */
public enum ElementType {
    FLOAT32(1, 4, "float32"),
    INT32(6, 4, "int32"),
    INT64(7, 8, "int64");

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

    public boolean isInteger() { return this != FLOAT32; }

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

    @Override
    public String toString() { return displayName; }
}
