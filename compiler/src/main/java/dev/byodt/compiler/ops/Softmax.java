package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.exp;
import static dev.byodt.compiler.kernel.Exprs.log;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * ONNX Softmax and LogSoftmax. From opset 13 they normalise along one axis (default -1); before, the input
 * is seen as a 2-D matrix split at the axis (default 1) and each row of that matrix is normalised. Both
 * forms are an (outer x extent x inner) view of the tensor with the normalisation along the middle.
 * The row maximum is subtracted first, so large inputs do not overflow exp. An attention mask's -inf is the
 * datatype's lowest value in a datatype without infinities (a posit's -maxpos, fixed point's most negative
 * value), whose exp after the subtraction need not be 0 (posits round nothing to zero; fixed point saturates
 * the difference): Softmax gives such an element weight 0, as float32 gives -inf.
 */
final class Softmax implements Operator {
    private final boolean logarithm;

    private Softmax(boolean logarithm) {
        this.logarithm = logarithm;
    }

    static void registerAll() {
        Operators.register("Softmax", new Softmax(false));
        Operators.register("LogSoftmax", new Softmax(true));
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.floatInput(node, 0, "input");
        view(node, x.shape());
        return List.of(x);
    }

    /**
     * {outer, extent, inner}: the tensor as rows of {@code extent} elements spaced {@code inner} apart, the rows
     * that Softmax, LogSoftmax and Hardmax normalise, which take their axis alike.
     */
    static long[] view(Node node, long[] shape) {
        boolean perAxis = node.opsetVersion() >= 13;
        if (shape.length == 0) throw node.error("input must have rank 1 or more");
        int axis = Axes.normalize(node, node.intAttr("axis", perAxis ? -1 : 1), shape.length);
        long outer = Operands.product(shape, 0, axis);
        if (!perAxis) return new long[] {outer, Operands.product(shape, axis, shape.length), 1};
        return new long[] {outer, shape[axis], Operands.product(shape, axis + 1, shape.length)};
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        long[] v = view(node, x.shape());
        long extent = v[1];
        long inner = v[2];
        Buffer weights = kb.scratch("weights", ScalarType.REAL, new long[] {extent});
        kb.loop(v[0], o -> kb.loop(inner, i -> {
            Expr rowStart = add(mul(o, extent * inner), i);
            Local largest = kb.local("max", real(Double.NEGATIVE_INFINITY));
            kb.loop(extent, k -> kb.assign(largest, max(kb.get(largest), kb.load(x, add(rowStart, mul(k, inner))))));
            // The row's weights go into a buffer first, in a loop of their own that vectorizes, where summing them in
            // order as they were computed kept each exp scalar (and Softmax computed each exp twice).
            kb.loop(extent, k -> kb.store(weights, k, weight(kb.load(x, add(rowStart, mul(k, inner))), kb.get(largest))));
            Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
            kb.loop(extent, k -> kb.assign(sum, accumulate(kb.get(sum), kb.load(weights, k))));
            Expr total = cast(ScalarType.REAL, kb.get(sum));
            Local denominator = kb.local("denominator", logarithm ? log(total) : total);
            kb.loop(extent, k -> {
                Expr at = add(rowStart, mul(k, inner));
                Expr shifted = sub(kb.load(x, at), kb.get(largest));
                kb.store(y, at, logarithm ? sub(shifted, kb.get(denominator)) : div(kb.load(weights, k), kb.get(denominator)));
            });
        }));
    }

    /** exp(x - largest), and 0 for the lowest value (-inf in float32, where exp gives 0 anyway). */
    private static Expr weight(Expr x, Expr largest) {
        return select(eq(x, real(Double.NEGATIVE_INFINITY)), real(0), exp(sub(x, largest)));
    }
}
