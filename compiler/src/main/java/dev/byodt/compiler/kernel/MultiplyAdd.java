package dev.byodt.compiler.kernel;

import dev.byodt.runtime.ByodtException;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a multiply-add of machine floats ({@link ScalarOp#MAC} on F32: the terms of float32's dot products and of
 * --accumulate float32's sums) rounds, --multiply-add. Both are deterministic: the same bits on every target and in
 * the interpreter, unlike a C compiler's -ffp-contract=fast, which leaves the choice to the target.
 */
public enum MultiplyAdd {
    /** The product rounded to float32, then the sum: two roundings, what ONNX's reference implementation computes. */
    SEPARATE,
    /**
     * One fused multiply-add, the exact acc + a * b rounded once (llvm.fma, never llvm.fmuladd, so the target cannot
     * choose two roundings): what ONNX Runtime's and PyTorch's float32 kernels compute, one instruction where the
     * machine has it (x86-64's vfmadd, RISC-V's fmadd.s) and a correctly rounded library call where it has not.
     */
    FUSED;

    /** fused or separate, as --multiply-add spells it. */
    public String optionName() { return name().toLowerCase(Locale.ROOT); }

    /** acc + a * b rounded as this mode rounds it: what the compiled code computes, in Java. */
    public float apply(float acc, float a, float b) { return this == FUSED ? Math.fma(a, b, acc) : acc + a * b; }

    /** Parses --multiply-add's value. */
    public static MultiplyAdd parse(String text) {
        for (MultiplyAdd m : values()) {
            if (m.optionName().equals(text)) return m;
        }
        throw new ByodtException("unknown --multiply-add '" + text + "' ("
            + Arrays.stream(values()).map(MultiplyAdd::optionName).collect(Collectors.joining(" or ")) + ")");
    }
}
