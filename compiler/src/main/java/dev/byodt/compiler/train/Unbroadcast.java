package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;

/**
 * The gradient of an operand that numpy-style broadcasting stretched to the output's shape: each of its
 * elements sums the terms of every output element it was stretched to (shapes aligned on the right).
 */
final class Unbroadcast {
    private Unbroadcast() {}

    /**
     * out[o] = the sum of {@code term}(y) over the output indices y that element o was broadcast to, in the
     * accumulator; an element broadcast nowhere (same shapes) is its one term, stored as it is.
     */
    static void reduce(KernelBuilder kb, long[] outputShape, Buffer out, Function<Expr[], Expr> term) {
        int offset = outputShape.length - out.rank();
        boolean reduces = false;
        for (int d = 0; d < outputShape.length; d++) reduces |= outputShape[d] > 1 && (d < offset || out.dim(d - offset) == 1);
        if (!reduces) {
            kb.loops(out.shape(), o -> kb.store(out, flatIndex(out.shape(), o), term.apply(outputIndex(outputShape, out, o, null))));
            return;
        }
        kb.loops(out.shape(), o -> {
            Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
            long[] stretched = new long[outputShape.length];
            for (int d = 0; d < outputShape.length; d++) {
                stretched[d] = d < offset || out.dim(d - offset) == 1 ? outputShape[d] : 1;
            }
            kb.loops(stretched, s -> kb.assign(sum, accumulate(kb.get(sum), term.apply(outputIndex(outputShape, out, o, s)))));
            kb.store(out, flatIndex(out.shape(), o), cast(ScalarType.REAL, kb.get(sum)));
        });
    }

    /** The output index made of the operand's index o and, on the stretched axes, s (null: none stretched). */
    private static Expr[] outputIndex(long[] outputShape, Buffer operand, Expr[] o, Expr[] s) {
        int offset = outputShape.length - operand.rank();
        Expr[] y = new Expr[outputShape.length];
        for (int d = 0; d < y.length; d++) {
            boolean stretched = d < offset || operand.dim(d - offset) == 1;
            y[d] = stretched ? (s == null ? idx(0) : s[d]) : o[d - offset];
        }
        return y;
    }

    /** The flat index in {@code operand} of the element broadcast to output index y. */
    static Expr operandIndex(Buffer operand, Expr[] y) {
        int offset = y.length - operand.rank();
        Expr[] at = new Expr[operand.rank()];
        for (int d = 0; d < at.length; d++) at[d] = operand.dim(d) == 1 ? idx(0) : y[d + offset];
        return flatIndex(operand.shape(), at);
    }
}
