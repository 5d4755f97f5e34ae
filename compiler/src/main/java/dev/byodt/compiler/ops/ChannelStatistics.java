package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.function.Consumer;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.divideByCount;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * The batch statistics of one channel of X (N x C x D1..Dn), as BatchNormalization in training mode computes
 * them: the sum and the sum of squared deviations from the mean accumulate in ACC over the batch and the
 * spatial positions and are rounded once. Shared by the forward nest and the training step's gradient and
 * running-statistics kernels, which must see the very same mean and variance.
 *
 * @param mean    the channel's mean
 * @param squares the sum of squared deviations from the mean, in ACC
 * @param count   how many elements the channel has
 */
public record ChannelStatistics(Local mean, Local squares, long count) {
    public static ChannelStatistics of(KernelBuilder kb, Buffer x, Expr c) {
        long[] shape = x.shape();
        long count = shape[0] * Operands.product(shape, 2, shape.length);
        Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
        forEachElement(kb, shape, c, at -> kb.assign(sum, accumulate(kb.get(sum), kb.load(x, at))));
        Local mean = kb.local("mean", divideByCount(cast(ScalarType.REAL, kb.get(sum)), count));
        Local squares = kb.local("squares", constant(ScalarType.ACC, 0));
        forEachElement(kb, shape, c, at -> {
            Expr deviation = sub(kb.load(x, at), kb.get(mean));
            kb.assign(squares, mac(kb.get(squares), deviation, deviation));
        });
        return new ChannelStatistics(mean, squares, count);
    }

    /** The population variance (divided by the count), which normalizes the batch. */
    public Expr variance(KernelBuilder kb) {
        return divideByCount(cast(ScalarType.REAL, kb.get(squares)), count);
    }

    /** The sample variance (divided by the count less one), which PyTorch's running variance averages. */
    public Expr unbiasedVariance(KernelBuilder kb) {
        return divideByCount(cast(ScalarType.REAL, kb.get(squares)), count - 1);
    }

    /** Every flat index of channel c in X (N x C x D1..Dn). */
    public static void forEachElement(KernelBuilder kb, long[] shape, Expr c, Consumer<Expr> body) {
        long plane = Operands.product(shape, 2, shape.length);
        kb.loop(shape[0], n -> kb.loop(plane, i -> body.accept(add(add(mul(n, shape[1] * plane), mul(c, plane)), i))));
    }
}
