package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.exp;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * Softmax and LogSoftmax along their axis (opset 13: that one axis; before: every axis from it on, as one),
 * from the output Y as PyTorch computes them: Softmax dX = Y * (dY - sum(dY * Y)), LogSoftmax
 * dX = dY - exp(Y) * sum(dY), the sums over the axis in the accumulator.
 */
final class SoftmaxGradient implements GradientRule {
    private final boolean logarithmic;

    private SoftmaxGradient(boolean logarithmic) {
        this.logarithmic = logarithmic;
    }

    static void registerAll() {
        Gradients.register("Softmax", new SoftmaxGradient(false));
        Gradients.register("LogSoftmax", new SoftmaxGradient(true));
    }

    @Override
    public boolean differentiable(Node node, int input) { return input == 0; }

    @Override
    public void lower(Node node, int input, GradientKernel g) {
        KernelBuilder kb = g.kb();
        Buffer y = g.output();
        Buffer dy = g.outputGradient();
        long[] shape = y.shape();
        boolean singleAxis = node.opsetVersion() >= 13;
        int axis = (int) node.intAttr("axis", singleAxis ? -1 : 1);
        if (axis < 0) axis += shape.length;
        long outer = 1;
        long along = 1;
        long inner = 1;
        for (int d = 0; d < shape.length; d++) {
            if (d < axis) outer *= shape[d];
            else if (d == axis || !singleAxis) along *= shape[d];
            else inner *= shape[d];
        }
        long n = along;
        long stride = inner;
        kb.loop(outer, o -> kb.loop(stride, i -> {
            Expr base = add(mul(o, n * stride), i);
            Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
            kb.loop(n, j -> {
                Expr at = add(base, mul(j, stride));
                kb.assign(sum, logarithmic ? accumulate(kb.get(sum), kb.load(dy, at))
                    : mac(kb.get(sum), kb.load(dy, at), kb.load(y, at)));
            });
            Expr total = cast(ScalarType.REAL, kb.get(sum));
            kb.loop(n, j -> {
                Expr at = add(base, mul(j, stride));
                Expr value = logarithmic ? sub(kb.load(dy, at), mul(exp(kb.load(y, at)), total))
                    : mul(kb.load(y, at), sub(kb.load(dy, at), total));
                kb.store(g.gradient(), at, value);
            });
        }));
    }
}
