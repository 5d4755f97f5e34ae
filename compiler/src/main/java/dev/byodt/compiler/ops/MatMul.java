package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.Shapes;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * ONNX MatMul, numpy's matmul: a stack of matrix products over the broadcast leading (batch) dimensions.
 * A 1-D A is a row vector and a 1-D B a column vector, and that dimension is dropped from the result.
 */
public final class MatMul implements Operator {
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

    /** Each row a {@link RowOfSums}, whose loop over the row's columns vectorizes. */
    @Override
    public void lowerScheduled(Node node, KernelBuilder kb, int lanes) {
        Shape s = shape(node);
        emit(s, kb, new RowOfSums(kb, s.n()));
    }

    private static void emit(Shape s, KernelBuilder kb, ProductRow row) {
        Buffer a = kb.input(0);
        Buffer b = kb.input(1);
        Buffer y = kb.output(0);
        s.forEachMatrix(kb, at -> kb.loop(s.m(), i -> row.emit(s.k(), k -> kb.load(a, at.a(i, k)),
            (k, j) -> kb.load(b, at.b(k, j)), (j, sum) -> kb.store(y, at.y(i, j), sum))));
    }
}
