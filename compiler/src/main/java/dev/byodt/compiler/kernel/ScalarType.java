package dev.byodt.compiler.kernel;

import dev.byodt.runtime.ElementType;

/**
 * The type of a kernel expression. REAL and ACC are abstract: REAL is "a value of the tensor's datatype"
 * and ACC "the accumulator of a reduction under the chosen accumulation mode"; operators are written in
 * them and never know which datatype they run in. Datatype lowering replaces them with machine types
 * (F32 for float32, the storage integer for a custom datatype), and code generation sees machine types only.
 */
public enum ScalarType {
    REAL, ACC, BOOL, I8, I16, I32, I64, F32, F64;

    public boolean isAbstract() { return this == REAL || this == ACC; }

    public boolean isInteger() { return this == I8 || this == I16 || this == I32 || this == I64; }

    public boolean isMachineFloat() { return this == F32 || this == F64; }

    /** The kernel type that holds elements of a tensor of this element type. */
    public static ScalarType of(ElementType type) {
        return switch (type) {
            case FLOAT32 -> REAL;
            case INT32 -> I32;
            case INT64 -> I64;
        };
    }
}
