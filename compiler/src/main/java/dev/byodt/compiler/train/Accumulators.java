package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;

/**
 * Gradients that gather contributions from many places (a convolution's input, whose elements feed many
 * windows) are summed by scattering into a scratch tensor of accumulators, as the forward kernels sum into
 * ACC, and rounded to the datatype once at the end.
 */
final class Accumulators {
    private Accumulators() {}

    /** A scratch tensor of ACC zeros with the gradient's shape. */
    static Buffer zeroed(KernelBuilder kb, long[] shape) {
        Buffer acc = kb.scratch("acc", ScalarType.ACC, shape);
        kb.loop(acc.size(), i -> kb.store(acc, i, constant(ScalarType.ACC, 0)));
        return acc;
    }

    /** out[i] = the sum in acc[i], rounded to the datatype. */
    static void round(KernelBuilder kb, Buffer acc, Buffer out) {
        kb.loop(out.size(), i -> kb.store(out, i, cast(ScalarType.REAL, kb.load(acc, i))));
    }

    /** acc[index] = acc[index] + term. */
    static void add(KernelBuilder kb, Buffer acc, Expr index, Expr term) {
        kb.store(acc, index, accumulate(kb.load(acc, index), term));
    }
}
