package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;

/**
 * Gemm, Y = alpha * A' B' + beta * C with A' = A or its transpose (transA), likewise B': dA' = alpha * dY B'^T,
 * dB' = alpha * A'^T dY, each stored in A's or B's own layout, and dC = beta * dY summed over C's broadcast
 * axes. Each element sums its products in the accumulator, in order.
 */
final class GemmGradient implements GradientRule {
    static void registerAll() {
        Gradients.register("Gemm", new GemmGradient());
    }

    @Override
    public boolean differentiable(Node node, int input) { return input < 3; }

    @Override
    public void lower(Node node, int input, GradientKernel g) {
        KernelBuilder kb = g.kb();
        boolean transA = node.intAttr("transA", 0) != 0;
        boolean transB = node.intAttr("transB", 0) != 0;
        double alpha = node.floatAttr("alpha", 1f);
        double beta = node.floatAttr("beta", 1f);
        Buffer a = g.input(0);
        Buffer b = g.input(1);
        Buffer dy = g.outputGradient();
        long m = dy.dim(0);
        long n = dy.dim(1);
        Buffer grad = g.gradient();
        switch (input) {
            case 0 -> kb.loops(grad.shape(), at -> {
                Expr row = transA ? at[1] : at[0];
                Expr k = transA ? at[0] : at[1];
                Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
                kb.loop(n, j -> kb.assign(sum, mac(kb.get(sum), kb.load(dy, flatIndex(dy.shape(), row, j)),
                    kb.load(b, transB ? flatIndex(b.shape(), j, k) : flatIndex(b.shape(), k, j)))));
                kb.store(grad, flatIndex(grad.shape(), at), scaled(cast(ScalarType.REAL, kb.get(sum)), alpha));
            });
            case 1 -> kb.loops(grad.shape(), at -> {
                Expr k = transB ? at[1] : at[0];
                Expr col = transB ? at[0] : at[1];
                Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
                kb.loop(m, i -> kb.assign(sum, mac(kb.get(sum),
                    kb.load(a, transA ? flatIndex(a.shape(), k, i) : flatIndex(a.shape(), i, k)),
                    kb.load(dy, flatIndex(dy.shape(), i, col)))));
                kb.store(grad, flatIndex(grad.shape(), at), scaled(cast(ScalarType.REAL, kb.get(sum)), alpha));
            });
            default -> Unbroadcast.reduce(kb, dy.shape(), grad, y -> scaled(kb.load(dy, flatIndex(dy.shape(), y)), beta));
        }
    }

    private static Expr scaled(Expr value, double factor) { return factor == 1 ? value : mul(real(factor), value); }
}
