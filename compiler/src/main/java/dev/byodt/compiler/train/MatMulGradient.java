package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.Optional;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mac;

/**
 * MatMul of A (... x M x K, its leading axes as many rows) by a matrix B (K x N), the way a linear layer
 * uses it: dA = dY B^T row by row, dB = A^T dY summed over every row. A batched B has no gradient here.
 */
final class MatMulGradient implements GradientRule {
    static void registerAll() {
        Gradients.register("MatMul", new MatMulGradient());
    }

    @Override
    public Optional<String> unsupported(Node node) {
        int aRank = node.input(0).type().rank();
        int bRank = node.input(1).type().rank();
        if (aRank < 2 || bRank != 2) return Optional.of("only A of rank 2 or more times a matrix B has a gradient");
        return Optional.empty();
    }

    @Override
    public boolean differentiable(Node node, int input) { return input < 2; }

    @Override
    public void lower(Node node, int input, GradientKernel g) {
        KernelBuilder kb = g.kb();
        Buffer a = g.input(0);
        Buffer b = g.input(1);
        Buffer dy = g.outputGradient();
        long k = b.dim(0);
        long n = b.dim(1);
        long rows = a.size() / k;
        Buffer grad = g.gradient();
        if (input == 0) {
            kb.loop(rows, row -> kb.loop(k, col -> {
                Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
                kb.loop(n, j -> kb.assign(sum, mac(kb.get(sum), kb.load(dy, flatIndex(new long[]{rows, n}, row, j)),
                    kb.load(b, flatIndex(b.shape(), col, j)))));
                kb.store(grad, flatIndex(new long[]{rows, k}, row, col), cast(ScalarType.REAL, kb.get(sum)));
            }));
        } else {
            kb.loop(k, row -> kb.loop(n, col -> {
                Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
                kb.loop(rows, i -> kb.assign(sum, mac(kb.get(sum), kb.load(a, flatIndex(new long[]{rows, k}, i, row)),
                    kb.load(dy, flatIndex(new long[]{rows, n}, i, col)))));
                kb.store(grad, flatIndex(b.shape(), row, col), cast(ScalarType.REAL, kb.get(sum)));
            }));
        }
    }
}
