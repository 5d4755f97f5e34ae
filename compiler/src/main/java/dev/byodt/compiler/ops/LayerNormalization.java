package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.runtime.Shapes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.sqrt;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * ONNX LayerNormalization (opset 17): X normalised over its trailing dimensions from {@code axis} on, by
 * the mean and variance of each such block, then times Scale and plus the optional B, which broadcast to
 * X. The optional Mean and InvStdDev outputs hold each block's statistics (shape X's leading dimensions
 * followed by ones). Statistics are kept in float32, the only stash_type supported.
 */
final class LayerNormalization implements Operator {
    static void registerAll() {
        Operators.register("LayerNormalization", new LayerNormalization());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 1);
        int axis = axis(node, x.rank());
        for (int i = 1; i <= 2; i++) {
            String role = i == 1 ? "Scale" : "B";
            TensorType p = i == 1 ? Operands.floatInput(node, i, role) : Operands.optionalFloatInput(node, i, role);
            if (p != null && !Broadcasting.broadcastsTo(p.shape(), x.shape())) {
                throw node.error("input " + role + " of shape " + Shapes.format(p.shape()) + " does not broadcast to X "
                    + Shapes.format(x.shape()));
            }
        }
        RunStatistics.requireFloat32Stash(node);
        List<TensorType> types = new ArrayList<>(List.of(x));
        long[] statistics = x.shape();
        Arrays.fill(statistics, axis, statistics.length, 1);
        for (int i = 1; i < node.outputs().size(); i++) types.add(Operands.floatTensor(statistics));
        return types;
    }

    private static int axis(Node node, int rank) {
        return Axes.normalize(node, node.intAttr("axis", -1), rank);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer scale = kb.input(1);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        Buffer meanOut = Operands.hasOutput(node, 1) ? kb.output(1) : null;
        Buffer invStdDevOut = Operands.hasOutput(node, 2) ? kb.output(2) : null;
        long[] shape = x.shape();
        int axis = axis(node, shape.length);
        double epsilon = node.floatAttr("epsilon", 1e-5f);
        long[] leading = Arrays.copyOfRange(shape, 0, axis);
        long[] block = Arrays.copyOfRange(shape, axis, shape.length);
        long size = Shapes.elementCount(block, x.name());
        kb.loops(leading, outer -> {
            Expr row = flatIndex(leading, outer);
            Expr start = mul(row, size);
            RunStatistics statistics = RunStatistics.of(kb, x, start, size);
            Local mean = statistics.mean();
            Expr variance = statistics.variance();
            Local invStdDev = kb.local("invStdDev", div(real(1), sqrt(add(variance, real(epsilon)))));
            kb.loops(block, inner -> {
                Expr[] at = concat(outer, inner);
                Expr flat = add(start, flatIndex(block, inner));
                Expr normalized = mul(sub(kb.load(x, flat), kb.get(mean)), kb.get(invStdDev));
                Expr scaled = mul(normalized, kb.load(scale, Broadcasting.index(scale.shape(), at)));
                kb.store(y, flat, bias == null ? scaled : add(scaled, kb.load(bias, Broadcasting.index(bias.shape(), at))));
            });
            if (meanOut != null) kb.store(meanOut, row, kb.get(mean));
            if (invStdDevOut != null) kb.store(invStdDevOut, row, kb.get(invStdDev));
        });
    }

    private static Expr[] concat(Expr[] a, Expr[] b) {
        Expr[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
