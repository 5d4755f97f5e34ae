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

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.real;

/**
 * ONNX ReduceSum, ReduceMean and ReduceMax over a set of axes, keeping them as size-1 dimensions when
 * keepdims is set. The axes are an attribute up to ReduceSum-11 and ReduceMean/Max-13 and an optional
 * input from then on, which must be known at compile time; no axes means every axis, unless
 * noop_with_empty_axes makes the reduction an identity.
 */
final class Reductions implements Operator {
    private enum Kind {
        SUM(13), MEAN(18), MAX(18);

        /** The first opset in which the axes are an input rather than an attribute. */
        final int axesInputSince;

        Kind(int axesInputSince) {
            this.axesInputSince = axesInputSince;
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
        long elements = count;
        // Loop over the result with the reduced axes held at size 1 (the keepdims layout, which has the same
        // flat order as the squeezed one), and inside, over the reduced axes.
        kb.loops(kept, outer -> {
            Expr outIndex = flatIndex(kept, outer);
            if (kind == Kind.MAX) {
                Local largest = kb.local("max", real(Double.NEGATIVE_INFINITY));
                kb.loops(folded, inner ->
                    kb.assign(largest, max(kb.get(largest), kb.load(x, inputIndex(shape, reduced, outer, inner)))));
                kb.store(y, outIndex, kb.get(largest));
                return;
            }
            Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
            kb.loops(folded, inner ->
                kb.assign(sum, accumulate(kb.get(sum), kb.load(x, inputIndex(shape, reduced, outer, inner)))));
            Expr total = cast(ScalarType.REAL, kb.get(sum));
            kb.store(y, outIndex, kind == Kind.MEAN ? div(total, real(elements)) : total);
        });
    }

    private static Expr inputIndex(long[] shape, boolean[] reduced, Expr[] outer, Expr[] inner) {
        Expr[] at = new Expr[shape.length];
        for (int d = 0; d < shape.length; d++) at[d] = reduced[d] ? inner[d] : outer[d];
        return flatIndex(shape, at);
    }
}
