package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.runtime.Shapes;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.sqrt;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * ONNX InstanceNormalization: each channel of each sample of X (N x C x D1..Dn) normalised by its own mean
 * and variance, then scaled and shifted per channel. The variance is taken around the mean in a second
 * pass, which stays accurate where the mean is large compared to the spread.
 */
final class InstanceNormalization implements Operator {
    static void registerAll() {
        Operators.register("InstanceNormalization", new InstanceNormalization());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "input"), "input", 3);
        for (int i = 1; i <= 2; i++) {
            String role = i == 1 ? "scale" : "B";
            long[] shape = Operands.floatInput(node, i, role).shape();
            if (shape.length != 1 || shape[0] != x.dim(1)) {
                throw node.error("input " + role + " has shape " + Shapes.format(shape) + ", expected " + x.dim(1));
            }
        }
        return List.of(x);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer scale = kb.input(1);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        double epsilon = node.floatAttr("epsilon", 1e-5f);
        long channels = x.dim(1);
        long size = Operands.product(x.shape(), 2, x.rank());
        kb.loop(x.dim(0), n -> kb.loop(channels, c -> {
            Expr start = mul(add(mul(n, channels), c), size);
            RunStatistics statistics = RunStatistics.of(kb, x, start, size);
            Local mean = statistics.mean();
            Expr variance = statistics.variance();
            Local factor = kb.local("factor", div(kb.load(scale, c), sqrt(add(variance, real(epsilon)))));
            kb.loop(size, i -> {
                Expr at = add(start, i);
                kb.store(y, at, add(mul(sub(kb.load(x, at), kb.get(mean)), kb.get(factor)), kb.load(bias, c)));
            });
        }));
    }
}
