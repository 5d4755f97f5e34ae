package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * The integer matrix products of MatMulInteger and QLinearMatMul: over numpy matmul's broadcast batches, each
 * output the int32 sum over k of {@code (a[i,k] - a_zero_point) * (b[k,j] - b_zero_point)}, the zero point of A
 * one per tensor or one per row i, that of B one per tensor or one per column j. Integer arithmetic throughout,
 * whatever the datatype: a product of 8-bit differences is at most 255 * 255, so sums of up to 33,000 terms
 * are exact in int32, as ONNX specifies them.
 *
 * @param shape      the product's shapes
 * @param a          the input holding A
 * @param aZeroPoint A's zero point
 * @param b          the input holding B
 * @param bZeroPoint B's zero point
 */
record IntegerMatMul(MatMul.Shape shape, int a, QuantizationParameter aZeroPoint, int b, QuantizationParameter bZeroPoint) {
    /** What is stored for output (i, j) given its int32 sum. */
    interface Output {
        Expr of(Expr row, Expr column, Expr sum);
    }

    /** The product of inputs {@code a} and {@code b} with the zero points in inputs {@code aZeroPoint} and {@code bZeroPoint}. */
    static IntegerMatMul of(Node node, int a, int aZeroPoint, int b, int bZeroPoint) {
        MatMul.Shape shape = MatMul.shape(node, QuantizationParameter.integerInput(node, a, "A"),
            QuantizationParameter.integerInput(node, b, "B"));
        return new IntegerMatMul(shape, a,
            QuantizationParameter.zeroPoint(node, aZeroPoint, "a_zero_point", node.input(a).declaredType(), shape.m(), "row of A", true),
            b, QuantizationParameter.zeroPoint(node, bZeroPoint, "b_zero_point", node.input(b).declaredType(), shape.n(), "column of B", true));
    }

    /** The reference nest: each matrix of the stack row by row, column by column, each sum in the order of k. */
    void emit(KernelBuilder kb, Output output) {
        Buffer aBuffer = kb.input(a);
        Buffer bBuffer = kb.input(b);
        Buffer y = kb.output(0);
        shape.forEachMatrix(kb, at -> kb.loop(shape.m(), i -> kb.loop(shape.n(), j -> {
            Expr aZero = aZeroPoint.zeroPoint(kb, i);
            Expr bZero = bZeroPoint.zeroPoint(kb, j);
            Local sum = kb.local("sum", cast(ScalarType.I32, idx(0)));
            kb.loop(shape.k(), k -> {
                Expr aTerm = sub(kb.load(aBuffer, at.a(i, k)), aZero);
                Expr bTerm = sub(kb.load(bBuffer, at.b(k, j)), bZero);
                kb.assign(sum, add(kb.get(sum), mul(aTerm, bTerm)));
            });
            kb.store(y, at.y(i, j), output.of(i, j, kb.get(sum)));
        })));
    }
}
