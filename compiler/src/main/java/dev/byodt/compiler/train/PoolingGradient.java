package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.ops.WindowGeometry;

import java.util.Arrays;
import java.util.Optional;

import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.real;

/**
 * MaxPool and AveragePool: each output's gradient goes back to its window, into accumulators (windows may
 * overlap). AveragePool gives every counted tap dY / count (count as the forward pass divides by); MaxPool
 * gives all of dY to the first tap holding the window's maximum, as PyTorch's max_pool does.
 */
final class PoolingGradient implements GradientRule {
    private final boolean average;

    private PoolingGradient(boolean average) {
        this.average = average;
    }

    static void registerAll() {
        Gradients.register("MaxPool", new PoolingGradient(false));
        Gradients.register("AveragePool", new PoolingGradient(true));
    }

    @Override
    public Optional<String> unsupported(Node node) {
        if (node.outputs().size() > 1) return Optional.of("the Indices output has no gradient");
        return Optional.empty();
    }

    @Override
    public boolean differentiable(Node node, int input) { return input == 0; }

    @Override
    public void lower(Node node, int input, GradientKernel g) {
        KernelBuilder kb = g.kb();
        Buffer x = g.input(0);
        Buffer dy = g.outputGradient();
        WindowGeometry window = WindowGeometry.of(node, Arrays.copyOfRange(x.shape(), 2, x.rank()),
            node.intsAttr("kernel_shape", null));
        boolean countPadding = node.intAttr("count_include_pad", 0) != 0;
        Buffer acc = Accumulators.zeroed(kb, x.shape());
        kb.loops(dy.shape(), at -> {
            Expr batch = at[0];
            Expr channel = at[1];
            Expr[] out = Arrays.copyOfRange(at, 2, at.length);
            Expr dyAt = kb.load(dy, flatIndex(dy.shape(), at));
            if (average) {
                Expr share = window.mean(dyAt, out, countPadding);
                window.forEachTapUnrolled(kb, out, (position, tap) -> Accumulators.add(kb, acc,
                    flatIndex(x.shape(), WindowGeometry.indices(batch, channel, position)), share));
            } else {
                Local best = kb.local("max", real(Double.NEGATIVE_INFINITY));
                Local where = kb.local("argmax", idx(-1));
                window.forEachTapUnrolled(kb, out, (position, tap) -> {
                    Expr index = flatIndex(x.shape(), WindowGeometry.indices(batch, channel, position));
                    Expr value = kb.load(x, index);
                    kb.when(gt(value, kb.get(best)), () -> {
                        kb.assign(best, value);
                        kb.assign(where, index);
                    });
                });
                kb.when(ge(kb.get(where), idx(0)), () -> Accumulators.add(kb, acc, kb.get(where), dyAt));
            }
        });
        Accumulators.round(kb, acc, g.gradient());
    }
}
