package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import java.util.Arrays;
import java.util.List;
import java.util.function.BinaryOperator;
import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.abs;
import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.divideByCount;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.exp;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.log;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sqrt;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * The ONNX reductions over a set of axes (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
 * ReduceL2, ReduceLogSumExp, ReduceSumSquare), keeping the axes as size-1 dimensions when keepdims is set.
 * The axes are an attribute up to ReduceSum-11 and the others' opset 13, and an optional input from then on,
 * which must be known at compile time; no axes means every axis, unless noop_with_empty_axes makes the
 * reduction an identity. Sums accumulate in ACC and round once, as --accumulate says; products round at each
 * step, as the datatype multiplies; an empty set of elements gives the reduction's identity.
 */
final class Reductions implements Operator {
    private enum Kind {
        SUM(13, 0), MEAN(18, Double.NaN), MAX(18, Double.NEGATIVE_INFINITY), MIN(18, Double.POSITIVE_INFINITY),
        PROD(18, 1), L1(18, 0), L2(18, 0), LOG_SUM_EXP(18, Double.NEGATIVE_INFINITY), SUM_SQUARE(18, 0);

        /** The first opset in which the axes are an input rather than an attribute. */
        final int axesInputSince;
        /** The result of reducing no elements, as ONNX's reference gives it (the mean of nothing is 0/0). */
        final double ofNothing;

        Kind(int axesInputSince, double ofNothing) {
            this.axesInputSince = axesInputSince;
            this.ofNothing = ofNothing;
        }
    }

    private final Kind kind;

    private Reductions(Kind kind) {
        this.kind = kind;
    }

    static void registerAll() {
        Operators.register("ReduceSum", new Reductions(Kind.SUM));
        Operators.register("ReduceMean", new Reductions(Kind.MEAN));
        Operators.register("ReduceMax", new Reductions(Kind.MAX));
        Operators.register("ReduceMin", new Reductions(Kind.MIN));
        Operators.register("ReduceProd", new Reductions(Kind.PROD));
        Operators.register("ReduceL1", new Reductions(Kind.L1));
        Operators.register("ReduceL2", new Reductions(Kind.L2));
        Operators.register("ReduceLogSumExp", new Reductions(Kind.LOG_SUM_EXP));
        Operators.register("ReduceSumSquare", new Reductions(Kind.SUM_SQUARE));
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.floatInput(node, 0, "data");
        boolean[] reduced = reducedAxes(node, x.rank());
        if (reduced == null) return List.of(x);
        boolean keepDims = node.intAttr("keepdims", 1) != 0;
        long[] out = new long[x.rank()];
        int d = 0;
        for (int axis = 0; axis < x.rank(); axis++) {
            if (!reduced[axis]) out[d++] = x.dim(axis);
            else if (keepDims) out[d++] = 1;
        }
        return List.of(Operands.floatTensor(Arrays.copyOf(out, d)));
    }

    /** Which axes the node reduces, or null when it is an identity (noop_with_empty_axes and no axes). */
    private boolean[] reducedAxes(Node node, int rank) {
        long[] axes;
        if (node.opsetVersion() < kind.axesInputSince) {
            axes = node.intsAttr("axes", new long[0]);
        } else {
            axes = axesInput(node);
            if (axes.length == 0 && node.intAttr("noop_with_empty_axes", 0) != 0) return null;
        }
        boolean[] reduced = new boolean[rank];
        if (axes.length == 0) Arrays.fill(reduced, true);
        for (long a : axes) reduced[Axes.normalize(node, a, rank)] = true;
        return reduced;
    }

    private static long[] axesInput(Node node) {
        Value axes = node.input(1);
        if (axes == null) return new long[0];
        if (!axes.isConstant()) {
            throw node.error("the axes input '" + axes.name() + "' must be known at compile time "
                + "(fix it with --bind " + axes.name() + "=FILE.pb)");
        }
        if (axes.type().elementType() != ElementType.INT64 || axes.type().rank() > 1) {
            throw node.error("the axes input '" + axes.name() + "' must be a 1-D int64 tensor, not " + axes.type());
        }
        return axes.constant().toLongArray();
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        long[] shape = x.shape();
        boolean[] reduced = reducedAxes(node, shape.length);
        if (reduced == null) {
            kb.loop(x.size(), i -> kb.store(y, i, kb.load(x, i)));
            return;
        }
        long[] kept = new long[shape.length];
        long[] folded = new long[shape.length];
        long count = 1;
        for (int d = 0; d < shape.length; d++) {
            kept[d] = reduced[d] ? 1 : shape[d];
            folded[d] = reduced[d] ? shape[d] : 1;
            if (reduced[d]) count *= shape[d];
        }
        if (count == 0) {
            kb.loops(kept, outer -> kb.store(y, flatIndex(kept, outer), real(kind.ofNothing)));
            return;
        }
        long elements = count;
        // Loop over the result with the reduced axes held at size 1 (the keepdims layout, which has the same
        // flat order as the squeezed one), and inside, over the reduced axes.
        kb.loops(kept, outer -> {
            Function<Expr[], Expr> element = inner -> kb.load(x, inputIndex(shape, reduced, outer, inner));
            kb.store(y, flatIndex(kept, outer), reduce(kb, folded, elements, element));
        });
    }

    /** The reduction of the elements at every index of {@code folded}, {@code elements} of them. */
    private Expr reduce(KernelBuilder kb, long[] folded, long elements, Function<Expr[], Expr> element) {
        return switch (kind) {
            case MAX -> kb.get(extreme(kb, folded, element, true));
            case MIN -> kb.get(extreme(kb, folded, element, false));
            case PROD -> {
                Local product = kb.local("product", real(1));
                kb.loops(folded, inner -> kb.assign(product, mul(kb.get(product), element.apply(inner))));
                yield kb.get(product);
            }
            case SUM -> sum(kb, folded, (acc, x) -> accumulate(acc, x), element);
            case MEAN -> divideByCount(sum(kb, folded, (acc, x) -> accumulate(acc, x), element), elements);
            case L1 -> sum(kb, folded, (acc, x) -> accumulate(acc, abs(x)), element);
            case L2 -> sqrt(sum(kb, folded, (acc, x) -> mac(acc, x, x), element));
            case SUM_SQUARE -> sum(kb, folded, (acc, x) -> mac(acc, x, x), element);
            case LOG_SUM_EXP -> {
                // Shifted by the largest element, so that exp cannot overflow, even in narrow datatypes; by 0 where
                // that is infinite (x - x is then not 0), so that infinities give infinities as unshifted.
                Expr largest = kb.get(extreme(kb, folded, element, true));
                Local shift = kb.local("shift", select(eq(sub(largest, largest), real(0)), largest, real(0)));
                Expr total = sum(kb, folded, (acc, x) -> accumulate(acc, exp(sub(x, kb.get(shift)))), element);
                yield add(log(total), kb.get(shift));
            }
        };
    }

    /** The largest (smallest) element, starting from the first, so no datatype needs to hold an infinity. */
    private static Local extreme(KernelBuilder kb, long[] folded, Function<Expr[], Expr> element, boolean largest) {
        Expr[] first = new Expr[folded.length];
        Arrays.fill(first, idx(0));
        Local extreme = kb.local(largest ? "max" : "min", element.apply(first));
        kb.loops(folded, inner -> {
            Expr x = element.apply(inner);
            kb.assign(extreme, largest ? max(kb.get(extreme), x) : min(kb.get(extreme), x));
        });
        return extreme;
    }

    /** The sum, in ACC rounded once to REAL, of a term of each element: {@code step} adds it to the accumulator. */
    private static Expr sum(KernelBuilder kb, long[] folded, BinaryOperator<Expr> step, Function<Expr[], Expr> element) {
        Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
        kb.loops(folded, inner -> kb.assign(sum, step.apply(kb.get(sum), element.apply(inner))));
        return cast(ScalarType.REAL, kb.get(sum));
    }

    private static Expr inputIndex(long[] shape, boolean[] reduced, Expr[] outer, Expr[] inner) {
        Expr[] at = new Expr[shape.length];
        for (int d = 0; d < shape.length; d++) at[d] = reduced[d] ? inner[d] : outer[d];
        return flatIndex(shape, at);
    }
}
