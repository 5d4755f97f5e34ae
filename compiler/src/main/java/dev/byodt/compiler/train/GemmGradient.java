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
 * axes. Each element sums its products in the accumulator, in order; tuned, rows of the gradient at a time.
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
            case 0 -> sums(kb, grad, n, alpha, g.lanes().isPresent(), (at, j) -> {
                Expr row = transA ? at[1] : at[0];
                Expr k = transA ? at[0] : at[1];
                return new Expr[] {kb.load(dy, flatIndex(dy.shape(), row, j)),
                    kb.load(b, transB ? flatIndex(b.shape(), j, k) : flatIndex(b.shape(), k, j))};
            });
            case 1 -> sums(kb, grad, m, alpha, g.lanes().isPresent(), (at, i) -> {
                Expr k = transB ? at[1] : at[0];
                Expr col = transB ? at[0] : at[1];
                return new Expr[] {kb.load(a, transA ? flatIndex(a.shape(), k, i) : flatIndex(a.shape(), i, k)),
                    kb.load(dy, flatIndex(dy.shape(), i, col))};
            });
            default -> Unbroadcast.reduce(kb, dy.shape(), grad, y -> scaled(kb.load(dy, flatIndex(dy.shape(), y)), beta));
        }
    }

    /** The two factors of term {@code t} of the sum of the gradient's element {@code at}. */
    private interface Term {
        Expr[] of(Expr[] at, Expr t);
    }

    /**
     * grad[at] = factor * (the sum over t < terms of term(at, t)'s product, in the order of t). Tuned, a row of
     * accumulators takes each term for every column of a row of the gradient, the loop over columns innermost.
     */
    private static void sums(KernelBuilder kb, Buffer grad, long terms, double factor, boolean tuned, Term term) {
        if (!tuned) {
            kb.loops(grad.shape(), at -> {
                Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
                kb.loop(terms, t -> {
                    Expr[] product = term.of(at, t);
                    kb.assign(sum, mac(kb.get(sum), product[0], product[1]));
                });
                kb.store(grad, flatIndex(grad.shape(), at), scaled(cast(ScalarType.REAL, kb.get(sum)), factor));
            });
            return;
        }
        long columns = grad.dim(1);
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {columns});
        kb.loop(grad.dim(0), row -> {
            kb.loop(columns, column -> kb.store(acc, column, constant(ScalarType.ACC, 0)));
            kb.loop(terms, t -> kb.loop(columns, column -> {
                Expr[] product = term.of(new Expr[] {row, column}, t);
                kb.store(acc, column, mac(kb.load(acc, column), product[0], product[1]));
            }));
            kb.loop(columns, column -> kb.store(grad, flatIndex(grad.shape(), row, column),
                scaled(cast(ScalarType.REAL, kb.load(acc, column)), factor)));
        });
    }

    private static Expr scaled(Expr value, double factor) { return factor == 1 ? value : mul(real(factor), value); }
}
