package dev.byodt.compiler.kernel;

import dev.byodt.runtime.ElementType;

/**
 * The type of a kernel expression. REAL and ACC are abstract: REAL is "a value of the tensor's datatype"
 * and ACC "the accumulator of a reduction under the chosen accumulation mode"; operators are written in
 * them and never know which datatype they run in. Datatype lowering replaces them with machine types
 * (F32 for float32, the storage integer for a custom datatype), and code generation sees machine types only.
 */
public enum ScalarType {
    REAL, ACC, BOOL, I8, I16, I32, I64, F32, F64,
    /**
     * Wide integers: only exact accumulators (quires, wide fixed-point sums) and the pending products of a
     * fused dot-product unit have these types. Library functions take them by pointer (see
     * {@link Expr.Call.Passing}); as values they only move and add.
     */
    I128, I256, I512, I1024, I2048, I4096;

    public boolean isAbstract() { return this == REAL || this == ACC; }

    public boolean isInteger() { return this == I8 || this == I16 || this == I32 || this == I64 || isWide(); }

    /** An exact accumulator's integer type, wider than any machine register. */
    public boolean isWide() { return this == I128 || this == I256 || this == I512 || this == I1024 || this == I2048 || this == I4096; }

    /** The integer type of exactly {@code bits} bits (8, 16, ..., 4096). */
    public static ScalarType integerOfBits(int bits) {
        return switch (bits) {
            case 8 -> I8;
            case 16 -> I16;
            case 32 -> I32;
            case 64 -> I64;
            case 128 -> I128;
            case 256 -> I256;
            case 512 -> I512;
            case 1024 -> I1024;
            case 2048 -> I2048;
            case 4096 -> I4096;
            default -> throw new IllegalArgumentException("no integer type of " + bits + " bits");
        };
    }

    public boolean isMachineFloat() { return this == F32 || this == F64; }

    /** The kernel type that holds elements of a tensor of this element type (of the type it is computed in). */
    public static ScalarType of(ElementType type) {
        return switch (type.computed()) {
            case INT32 -> I32;
            case INT64 -> I64;
            case BOOL -> BOOL;
            default -> REAL;
        };
    }
}
