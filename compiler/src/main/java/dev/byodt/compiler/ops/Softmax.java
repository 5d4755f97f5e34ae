package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;
import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.exp;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.log;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
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
    /** Fewer lanes than this and rows in blocks would not pay: the reference nest is kept. */
    private static final long LEAST_LANES = 8;
    /** A block's weights at most, in elements: 256 KB of float32, within the second-level cache. */
    private static final long MOST_BLOCK_WEIGHTS = 64 * 1024;

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

    /** The reference nest: row after row, its maximum, its weights, their sum in order, then its outputs. */
    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        long[] v = view(node, x.shape());
        long extent = v[1];
        long inner = v[2];
        Buffer weights = kb.scratch("weights", ScalarType.REAL, new long[] {extent});
        kb.loop(v[0], o -> kb.loop(inner, i -> {
            Expr rowStart = add(mul(o, extent * inner), i);
            Function<Expr, Expr> at = k -> add(rowStart, mul(k, inner));
            Local largest = largest(kb, extent, at);
            // The row's weights go into a buffer first, in a loop of their own that vectorizes, where summing them in
            // order as they were computed kept each exp scalar (and Softmax computed each exp twice).
            kb.loop(extent, k -> kb.store(weights, k, weight(kb.load(x, at.apply(k)), kb.get(largest))));
            Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
            kb.loop(extent, k -> kb.assign(sum, accumulate(kb.get(sum), kb.load(weights, k))));
            Local denominator = kb.local("denominator", denominator(kb.get(sum)));
            kb.loop(extent, k -> kb.store(kb.output(0), at.apply(k),
                output(kb.load(x, at.apply(k)), kb.get(largest), kb.load(weights, k), kb.get(denominator))));
        }));
    }

    /**
     * Where the sums run on the machine's vectors ({@link NodeArithmetic#tileLanes}) and the rows are contiguous (the
     * last axis, as attention's), the rows in blocks of a vector's lanes, each block a contiguous run of the input:
     * each row's maximum as in the reference nest; the block's weights, then its outputs, in one loop each along the
     * whole run, so that they vectorize without a remainder at the end of every row (ViT's rows of 50 left 2 of every
     * 50 exps to a loop of their own); and the block's sums with the loop over its rows innermost, a lane a row, where
     * a row's own sum in order is a serial chain of adds, one add's latency a term. Each row sums the same weights in
     * the same order: the same bits. The last block starts early, so that it ends on the last row, and stores only
     * the rows the block before did not. Threads divide the blocks.
     */
    @Override
    public void lowerScheduled(Node node, KernelBuilder kb, NodeArithmetic arithmetic) {
        long lanes = arithmetic.tileLanes();
        Buffer x = kb.input(0);
        long[] v = view(node, x.shape());
        long rows = v[0];
        long extent = v[1];
        if (lanes < LEAST_LANES || v[2] != 1 || rows < lanes || lanes * extent > MOST_BLOCK_WEIGHTS) {
            lower(node, kb);
            return;
        }
        long run = lanes * extent;
        kb.splitLoop((rows + lanes - 1) / lanes, block -> {
            Expr first = min(mul(block, lanes), rows - lanes);
            Expr start = mul(first, extent);
            Expr own = mul(sub(mul(block, lanes), first), extent);
            Buffer weights = kb.scratch("blockWeights", ScalarType.REAL, new long[] {run});
            Buffer largest = kb.scratch("largest", ScalarType.REAL, new long[] {lanes});
            Buffer sums = kb.scratch("sums", ScalarType.ACC, new long[] {lanes});
            Buffer denominators = kb.scratch("denominators", ScalarType.REAL, new long[] {lanes});
            kb.loop(lanes, r -> kb.store(largest, r, kb.get(largest(kb, extent, k -> add(add(start, mul(r, extent)), k)))));
            kb.loop(run, j -> kb.store(weights, j, weight(kb.load(x, add(start, j)), kb.load(largest, div(j, extent)))));
            kb.vectorLoop(lanes, r -> kb.store(sums, r, constant(ScalarType.ACC, 0)));
            kb.loop(extent, k -> kb.vectorLoop(lanes, r -> kb.store(sums, r, accumulate(kb.load(sums, r), kb.load(weights, add(mul(r, extent), k))))));
            kb.vectorLoop(lanes, r -> kb.store(denominators, r, denominator(kb.load(sums, r))));
            kb.loop(run, j -> kb.when(ge(j, own), () -> kb.store(kb.output(0), add(start, j),
                output(kb.load(x, add(start, j)), kb.load(largest, div(j, extent)), kb.load(weights, j), kb.load(denominators, div(j, extent))))));
        });
    }

    /** The maximum of a row, its element k at {@code at(k)} of the input. */
    private static Local largest(KernelBuilder kb, long extent, Function<Expr, Expr> at) {
        Local largest = kb.local("max", real(Double.NEGATIVE_INFINITY));
        kb.loop(extent, k -> kb.assign(largest, max(kb.get(largest), kb.load(kb.input(0), at.apply(k)))));
        return largest;
    }

    /** What a row's outputs are divided by (Softmax) or take off (LogSoftmax), from the sum of its weights. */
    private Expr denominator(Expr sum) {
        Expr total = cast(ScalarType.REAL, sum);
        return logarithm ? log(total) : total;
    }

    /** The output at an element x of a row: its weight over the denominator, or for LogSoftmax x - largest - denominator. */
    private Expr output(Expr x, Expr largest, Expr weight, Expr denominator) {
        return logarithm ? sub(sub(x, largest), denominator) : div(weight, denominator);
    }

    /** exp(x - largest), and 0 for the lowest value (-inf in float32, where exp gives 0 anyway). */
    private static Expr weight(Expr x, Expr largest) {
        return select(eq(x, real(Double.NEGATIVE_INFINITY)), real(0), exp(sub(x, largest)));
    }
}
