package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;

/**
 * ONNX Gemm: Y = alpha * A' B' + beta * C, where A' and B' are A and B, transposed when transA and transB
 * say, and the optional C broadcasts to the M x N result. (Opsets before 7 name the broadcast explicitly;
 * broadcasting C is the same computation whatever that attribute says of it.)
 */
final class Gemm implements Operator {
    static void registerAll() {
        Operators.register("Gemm", new Gemm());
    }

    private record Shape(long m, long k, long n, boolean transA, boolean transB, long[] c) {}

    @Override
    public List<TensorType> inferTypes(Node node) {
        Shape s = shape(node);
        return List.of(Operands.floatTensor(new long[] {s.m(), s.n()}));
    }

    private static Shape shape(Node node) {
        TensorType a = Operands.floatInput(node, 0, "A");
        TensorType b = Operands.floatInput(node, 1, "B");
        TensorType c = Operands.optionalFloatInput(node, 2, "C");
        if (a.rank() != 2 || b.rank() != 2) {
            throw node.error("A " + Shapes.format(a.shape()) + " and B " + Shapes.format(b.shape()) + " must be matrices");
        }
        boolean transA = node.intAttr("transA", 0) != 0;
        boolean transB = node.intAttr("transB", 0) != 0;
        long m = transA ? a.dim(1) : a.dim(0);
        long k = transA ? a.dim(0) : a.dim(1);
        long kb = transB ? b.dim(1) : b.dim(0);
        long n = transB ? b.dim(0) : b.dim(1);
        if (k != kb) {
            throw node.error("cannot multiply A " + Shapes.format(a.shape()) + (transA ? " (transposed)" : "") + " by B "
                + Shapes.format(b.shape()) + (transB ? " (transposed)" : ""));
        }
        if (c != null && !Broadcasting.broadcastsTo(c.shape(), new long[] {m, n})) {
            throw node.error("C of shape " + Shapes.format(c.shape()) + " does not broadcast to " + m + "x" + n);
        }
        return new Shape(m, k, n, transA, transB, c == null ? null : c.shape());
    }

    /** The reference nest: Y row by row, each product one sum in the order of k. */
    @Override
    public void lower(Node node, KernelBuilder kb) {
        Shape s = shape(node);
        emit(node, s, kb, kb.input(1), s.transB(), ProductRow.reference(kb, s.n()));
    }

    /**
     * In sums that suit register tiles ({@link NodeArithmetic#tileLanes}), with a constant B and at least a vector of columns, register tiles ({@link RegisterTile#matrixProduct}),
     * B packed into their panels at compile time; else each row of Y a {@link RowOfSums}. Its inner loop reads a
     * row of B, so a constant B stored transposed (transB, the usual layout of fully connected weights) is
     * transposed back at compile time.
     */
    @Override
    public void lowerScheduled(Node node, KernelBuilder kb, NodeArithmetic arithmetic) {
        Shape s = shape(node);
        Value b = node.input(1);
        if (b.isConstant() && RegisterTile.fits(arithmetic, s.n())) {
            // The panels take one row of terms per column of Y: B transposed, as transB stores it.
            Tensor columns = s.transB() ? b.constant() : PackedWeights.transposed(b.constant(), 1, s.k(), s.n());
            Buffer a = kb.input(0);
            RegisterTile.matrixProduct(kb, arithmetic.tileLanes(), s.m(), s.k(), s.n(), columns,
                (i, k) -> kb.load(a, s.transA() ? add(mul(k, s.m()), i) : add(mul(i, s.k()), k)),
                (i, j, sum) -> store(node, s, kb, i, j, sum));
        } else if (s.transB() && b.isConstant()) {
            Buffer bRows = kb.constant("B.transposed", ScalarType.REAL, PackedWeights.transposed(b.constant(), 1, s.n(), s.k()));
            emit(node, s, kb, bRows, false, new RowOfSums(kb, s.n()));
        } else {
            emit(node, s, kb, kb.input(1), s.transB(), new RowOfSums(kb, s.n()));
        }
    }

    /** Y from A and {@code bRows}, B or its transpose as {@code bTransposed} says, row by row of {@code row}. */
    private static void emit(Node node, Shape s, KernelBuilder kb, Buffer bRows, boolean bTransposed, ProductRow row) {
        Buffer a = kb.input(0);
        kb.splitLoop(s.m(), i -> row.emit(s.k(),
            k -> kb.load(a, s.transA() ? add(mul(k, s.m()), i) : add(mul(i, s.k()), k)),
            (k, j) -> kb.load(bRows, bTransposed ? add(mul(j, s.k()), k) : add(mul(k, s.n()), j)),
            (j, sum) -> store(node, s, kb, i, j, sum)));
    }

    /** Stores Y[i][j] = alpha * sum + beta * C[i][j]. */
    private static void store(Node node, Shape s, KernelBuilder kb, Expr i, Expr j, Expr sum) {
        float alpha = node.floatAttr("alpha", 1);
        float beta = node.floatAttr("beta", 1);
        Buffer c = beta == 0 ? null : kb.input(2);
        Expr result = alpha == 1 ? sum : mul(real(alpha), sum);
        if (c != null) {
            Expr cValue = kb.load(c, Broadcasting.index(s.c(), new Expr[] {i, j}));
            result = add(result, beta == 1 ? cValue : mul(real(beta), cValue));
        }
        kb.store(kb.output(0), add(mul(i, s.n()), j), result);
    }
}
