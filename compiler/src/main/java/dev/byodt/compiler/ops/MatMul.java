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

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * ONNX MatMul, numpy's matmul: a stack of matrix products over the broadcast leading (batch) dimensions.
 * A 1-D A is a row vector and a 1-D B a column vector, and that dimension is dropped from the result.
 */
public final class MatMul implements Operator {
    /** The fewest lanes a vector must have for rows taken together (P targets keep the row nest they pair up). */
    private static final int LANES_FOR_ROWS_TOGETHER = 8;
    /** Rows taken together at most (a block of rows leaves two blocks at least, for two threads). */
    private static final long MOST_ROWS_TOGETHER = 8;
    /** Columns a block of rows sums at a time at most: 8 rows of 512 accumulators are 16 KB, within L1. */
    private static final long MOST_COLUMNS_TOGETHER = 512;

    static void registerAll() {
        Operators.register("MatMul", new MatMul());
    }

    /** The operands as batches of M x K and K x N matrices, and the shapes of everything involved. */
    public record Shape(long[] aBatch, long[] bBatch, long[] batch, long m, long k, long n, long[] output) {
        /** Which of A's matrices (A seen as [matrices, M, K]) the output's matrix at batch indices {@code at} reads. */
        public Expr aMatrix(Expr[] at) { return Broadcasting.index(aBatch, at); }

        /** Which of B's matrices (B seen as [matrices, K, N]) the output's matrix at batch indices {@code at} reads. */
        public Expr bMatrix(Expr[] at) { return Broadcasting.index(bBatch, at); }


        /** Loops over the output's batch, each matrix of the stack handed to {@code body} as its flat offsets. */
        void forEachMatrix(KernelBuilder kb, Consumer<Offsets> body) {
            kb.loops(batch, at -> body.accept(new Offsets(this, mul(aMatrix(at), m * k), mul(bMatrix(at), k * n), flatIndex(batch, at))));
        }
    }

    /** Where the elements of one matrix product of the stack are, in the flat A, B and output. */
    record Offsets(Shape shape, Expr aBase, Expr bBase, Expr matrix) {
        Expr a(Expr i, Expr k) { return add(aBase, add(mul(i, shape.k()), k)); }

        Expr b(Expr k, Expr j) { return add(bBase, add(mul(k, shape.n()), j)); }

        /** The output's dropped vector dimensions have size 1, so its flat layout is batch x M x N. */
        Expr y(Expr i, Expr j) {
            return flatIndex(new long[] {Shapes.elementCount(shape.batch(), "batch"), shape.m(), shape.n()}, matrix, i, j);
        }
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        return List.of(Operands.floatTensor(shape(node).output()));
    }

    private static Shape shape(Node node) {
        return shape(node, Operands.floatInput(node, 0, "A"), Operands.floatInput(node, 1, "B"));
    }

    /** The shapes of the product of a and b, as numpy's matmul has it, or an error naming the node. */
    public static Shape shape(Node node, TensorType aType, TensorType bType) {
        long[] a = Operands.requireRank(node, aType, "A", 1).shape();
        long[] b = Operands.requireRank(node, bType, "B", 1).shape();
        long[] a2 = a.length == 1 ? new long[] {1, a[0]} : a;
        long[] b2 = b.length == 1 ? new long[] {b[0], 1} : b;
        long m = a2[a2.length - 2];
        long k = a2[a2.length - 1];
        long n = b2[b2.length - 1];
        if (b2[b2.length - 2] != k) {
            throw node.error("cannot multiply A of shape " + Shapes.format(a) + " by B of shape " + Shapes.format(b));
        }
        long[] aBatch = Arrays.copyOf(a2, a2.length - 2);
        long[] bBatch = Arrays.copyOf(b2, b2.length - 2);
        long[] batch = broadcast(node, aBatch, bBatch, a, b);
        long[] output = Arrays.copyOf(batch, batch.length + (a.length > 1 ? 1 : 0) + (b.length > 1 ? 1 : 0));
        int d = batch.length;
        if (a.length > 1) output[d++] = m;
        if (b.length > 1) output[d] = n;
        return new Shape(aBatch, bBatch, batch, m, k, n, output);
    }

    private static long[] broadcast(Node node, long[] x, long[] y, long[] a, long[] b) {
        long[] out = new long[Math.max(x.length, y.length)];
        for (int d = 0; d < out.length; d++) {
            long dx = d < out.length - x.length ? 1 : x[d - (out.length - x.length)];
            long dy = d < out.length - y.length ? 1 : y[d - (out.length - y.length)];
            if (dx != dy && dx != 1 && dy != 1) {
                throw node.error("batch dimensions of A " + Shapes.format(a) + " and B " + Shapes.format(b)
                    + " do not broadcast");
            }
            out[d] = dx == 1 ? dy : dx;
        }
        return out;
    }

    /** The reference nest: each matrix of the stack row by row, each output one sum in the order of k. */
    @Override
    public void lower(Node node, KernelBuilder kb) {
        Shape s = shape(node);
        emit(s, kb, ProductRow.reference(kb, s.n()));
    }

    /**
     * In sums that suit register tiles ({@link NodeArithmetic#tileLanes}), with a constant 2-D B and at least a vector of columns, the whole stack of A's rows times B in register tiles
     * ({@link RegisterTile#matrixProduct}); else each row a {@link RowOfSums}, whose loop over the row's columns vectorizes; on
     * targets with vectors of 8 lanes or more, a few rows at a time ({@link #emitRowsTogether}), within a matrix of the
     * stack where the items must stay apart (a 2-D A's rows may be the items).
     */
    @Override
    public void lowerScheduled(Node node, KernelBuilder kb, NodeArithmetic arithmetic) {
        int lanes = arithmetic.lanes();
        Shape s = shape(node);
        Value b = node.input(1);
        if (b.isConstant() && s.bBatch().length == 0 && RegisterTile.fits(arithmetic, s.n())) {
            long rows = Shapes.elementCount(s.batch(), "batch") * s.m();
            Tensor bRows = PackedWeights.transposed(b.constant(), 1, s.k(), s.n());
            Buffer a = kb.input(0);
            RegisterTile.matrixProduct(kb, arithmetic.tileLanes(), rows, s.k(), s.n(), bRows, (i, k) -> kb.load(a, add(mul(i, s.k()), k)),
                (i, j, sum) -> kb.store(kb.output(0), add(mul(i, s.n()), j), sum));
        }
        else if (lanes >= LANES_FOR_ROWS_TOGETHER && (!arithmetic.itemsApart() || s.batch().length > 0)) emitRowsTogether(s, kb);
        else emit(s, kb, new RowOfSums(kb, s.n()));
    }

    /**
     * Rows of sums for a few rows of A and a block of columns at once: each term k takes, for each of the rows in
     * turn, its element of A times the block's part of row k of B into that row's accumulators, which stay in
     * the first-level cache. Each part of B read then serves all the rows, where row after row streams the whole
     * of B once per row of A (a transformer's [50 x 768] x [768 x 3072] product read its 9 MB of weights 50
     * times). Each output still sums its terms in the order of k and is rounded once, as in {@link RowOfSums}: the
     * same bits. Threads divide the blocks of rows.
     */
    private static void emitRowsTogether(Shape s, KernelBuilder kb) {
        Buffer a = kb.input(0);
        Buffer b = kb.input(1);
        Buffer y = kb.output(0);
        long rows = largestDivisor(s.m(), Math.min(MOST_ROWS_TOGETHER, s.m() / 2));
        long columns = largestDivisor(s.n(), MOST_COLUMNS_TOGETHER);
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {rows, columns});
        s.forEachMatrix(kb, at -> kb.splitLoop(s.m() / rows, block -> kb.loop(s.n() / columns, columnBlock -> {
            kb.loop(rows * columns, i -> kb.store(acc, i, constant(ScalarType.ACC, 0)));
            kb.loop(s.k(), k -> kb.loop(rows, r -> {
                Expr aAt = kb.load(a, at.a(add(mul(block, rows), r), k));
                kb.loop(columns, c -> {
                    Expr accAt = add(mul(r, columns), c);
                    Expr bAt = kb.load(b, at.b(k, add(mul(columnBlock, columns), c)));
                    kb.store(acc, accAt, mac(kb.load(acc, accAt), aAt, bAt));
                });
            }));
            kb.loop(rows, r -> kb.loop(columns, c -> kb.store(y, at.y(add(mul(block, rows), r), add(mul(columnBlock, columns), c)),
                cast(ScalarType.REAL, kb.load(acc, add(mul(r, columns), c))))));
        })));
    }

    /** The largest divisor of {@code n} up to {@code limit}, or 1. */
    private static long largestDivisor(long n, long limit) {
        for (long d = Math.min(n, limit); d > 1; d--) {
            if (n % d == 0) return d;
        }
        return 1;
    }

    private static void emit(Shape s, KernelBuilder kb, ProductRow row) {
        Buffer a = kb.input(0);
        Buffer b = kb.input(1);
        Buffer y = kb.output(0);
        s.forEachMatrix(kb, at -> kb.splitLoop(s.m(), i -> row.emit(s.k(), k -> kb.load(a, at.a(i, k)),
            (k, j) -> kb.load(b, at.b(k, j)), (j, sum) -> kb.store(y, at.y(i, j), sum))));
    }
}
