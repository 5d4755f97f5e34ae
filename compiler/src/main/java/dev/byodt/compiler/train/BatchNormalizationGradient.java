package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.ops.ChannelStatistics;

import java.util.Optional;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.divideByCount;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.sqrt;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * BatchNormalization in training mode (training_mode=1: normalized by the batch's own mean and variance, per
 * channel), differentiated as PyTorch's batch_norm_backward does on the CPU. Per channel, with n elements,
 * invstd = 1 / sqrt(var + epsilon), sum = the sum of dY and dotp = the sum of dY * (X - mean):
 * dB = sum, dScale = dotp * invstd, and dX = (dY - sum / n - (X - mean) * dotp * invstd^2 / n) * invstd * scale
 * (the mean and variance depend on X too, which the last two terms account for). Each kernel recomputes the
 * channel's statistics from X as the forward nest does ({@link ChannelStatistics}), so they are the same values.
 */
final class BatchNormalizationGradient implements GradientRule {
    static void registerAll() {
        Gradients.register("BatchNormalization", new BatchNormalizationGradient());
    }

    @Override
    public Optional<String> unsupported(Node node) {
        return node.intAttr("training_mode", 0) == 1 ? Optional.empty()
            : Optional.of("inference mode: the gradient is that of training_mode=1, normalized by the batch's statistics");
    }

    /** X, scale and B; the running mean and variance are statistics, not functions of the loss. */
    @Override
    public boolean differentiable(Node node, int input) { return input < 3; }

    @Override
    public void lower(Node node, int input, GradientKernel g) {
        KernelBuilder kb = g.kb();
        Buffer x = g.input(0);
        Buffer dy = g.outputGradient();
        Buffer grad = g.gradient();
        long[] shape = x.shape();
        double epsilon = node.floatAttr("epsilon", 1e-5f);
        kb.loop(shape[1], c -> {
            ChannelStatistics statistics = ChannelStatistics.of(kb, x, c);
            Expr mean = kb.get(statistics.mean());
            Local invstd = kb.local("invstd", div(real(1), sqrt(add(statistics.variance(kb), real(epsilon)))));
            Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
            Local dotp = kb.local("dotp", constant(ScalarType.ACC, 0));
            ChannelStatistics.forEachElement(kb, shape, c, at -> {
                Expr dyAt = kb.load(dy, at);
                if (input != 1) kb.assign(sum, accumulate(kb.get(sum), dyAt));
                if (input != 2) kb.assign(dotp, mac(kb.get(dotp), dyAt, sub(kb.load(x, at), mean)));
            });
            Expr dotpReal = cast(ScalarType.REAL, kb.get(dotp));
            switch (input) {
                case 2 -> kb.store(grad, c, cast(ScalarType.REAL, kb.get(sum)));
                case 1 -> kb.store(grad, c, mul(dotpReal, kb.get(invstd)));
                default -> {
                    long n = statistics.count();
                    Local projection = kb.local("projection",
                        divideByCount(mul(mul(dotpReal, kb.get(invstd)), kb.get(invstd)), n));
                    Local gradientMean = kb.local("gradientMean", divideByCount(cast(ScalarType.REAL, kb.get(sum)), n));
                    Local factor = kb.local("factor", mul(kb.get(invstd), kb.load(g.input(1), c)));
                    ChannelStatistics.forEachElement(kb, shape, c, at -> kb.store(grad, at, mul(sub(sub(
                        kb.load(dy, at), kb.get(gradientMean)), mul(sub(kb.load(x, at), mean), kb.get(projection))),
                        kb.get(factor))));
                }
            }
        });
    }
}
