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
 * ONNX GroupNormalization: the channels of each sample of X (N x C x D1..Dn) split into num_groups groups of
 * consecutive channels, each group normalised by its own mean and variance, then scaled and shifted. The
 * scale and bias hold one value per group in opset 18 and one per channel from opset 21, which also brings
 * stash_type (float32 only, as in LayerNormalization).
 */
final class GroupNormalization implements Operator {
    /** The first opset in which scale and bias are per channel rather than per group. */
    private static final int PER_CHANNEL_SINCE = 21;

    static void registerAll() {
        Operators.register("GroupNormalization", new GroupNormalization());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 2);
        long groups = groups(node, x.dim(1));
        long perParameter = node.opsetVersion() >= PER_CHANNEL_SINCE ? x.dim(1) : groups;
        for (int i = 1; i <= 2; i++) {
            String role = i == 1 ? "scale" : "bias";
            long[] shape = Operands.floatInput(node, i, role).shape();
            if (shape.length != 1 || shape[0] != perParameter) {
                throw node.error("input " + role + " has shape " + Shapes.format(shape) + ", expected " + perParameter
                    + (perParameter == groups ? " (one value per group before opset 21)" : " (one value per channel)"));
            }
        }
        RunStatistics.requireFloat32Stash(node);
        return List.of(x);
    }

    private static long groups(Node node, long channels) {
        if (!node.hasAttribute("num_groups")) throw node.error("attribute num_groups is missing");
        long groups = node.intAttr("num_groups", 0);
        if (groups <= 0 || channels % groups != 0) {
            throw node.badAttribute("num_groups", groups, "a positive divisor of the " + channels + " channels");
        }
        return groups;
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        lowerGroups(node, kb, groups(node, kb.input(0).dim(1)), node.opsetVersion() >= PER_CHANNEL_SINCE);
    }

    /**
     * The normalization of X (input 0) in {@code groups} groups of consecutive channels, with scale and bias
     * (inputs 1 and 2) per channel or per group; InstanceNormalization is the case of one channel a group.
     */
    static void lowerGroups(Node node, KernelBuilder kb, long groups, boolean perChannel) {
        Buffer x = kb.input(0);
        Buffer scale = kb.input(1);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        double epsilon = node.floatAttr("epsilon", 1e-5f);
        long channelsPerGroup = x.dim(1) / groups;
        long spatial = Operands.product(x.shape(), 2, x.rank());
        long size = channelsPerGroup * spatial;
        kb.loop(x.dim(0), n -> kb.loop(groups, g -> {
            Expr start = mul(add(mul(n, groups), g), size);
            RunStatistics statistics = RunStatistics.of(kb, x, start, size);
            Local mean = statistics.mean();
            // Divided by the deviation rather than times its inverse, which a narrow datatype cannot hold where
            // a group varies little (fxp16_13 ends below 4), while the normalized values stay within sqrt(size).
            Local stdDev = kb.local("stdDev", sqrt(add(statistics.variance(), real(epsilon))));
            kb.loop(channelsPerGroup, c -> {
                Expr parameter = perChannel ? add(mul(g, channelsPerGroup), c) : g;
                kb.loop(spatial, i -> {
                    Expr at = add(start, add(mul(c, spatial), i));
                    Expr normalized = div(sub(kb.load(x, at), kb.get(mean)), kb.get(stdDev));
                    kb.store(y, at, add(mul(normalized, kb.load(scale, parameter)), kb.load(bias, parameter)));
                });
            });
        }));
    }
}
