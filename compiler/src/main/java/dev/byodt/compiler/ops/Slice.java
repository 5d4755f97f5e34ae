package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * Slice: along each listed axis, every step-th element from start up to (not including) end. starts,
 * ends and axes are attributes before opset 10; from opset 10 they are inputs, with optional axes and
 * steps. Negative starts and ends count from the end, and out-of-range values clamp, per the spec.
 */
final class Slice implements Operator {
    /** For every dimension: the first element taken, the stride between taken elements, and how many. */
    private record Window(long[] start, long[] step, long[] count) {}

    static void registerAll() {
        Operators.register("Slice", new Slice());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        return List.of(node.input(0).type().withShape(window(node).count()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Window w = window(node);
        Buffer in = kb.input(0), out = kb.output(0);
        kb.loops(w.count(), o -> {
            Expr[] i = new Expr[o.length];
            for (int d = 0; d < o.length; d++) i[d] = add(mul(o[d], w.step()[d]), w.start()[d]);
            kb.store(out, flatIndex(out.shape(), o), kb.load(in, flatIndex(in.shape(), i)));
        });
    }

    private static Window window(Node node) {
        long[] shape = node.input(0).type().shape();
        boolean fromInputs = node.opsetVersion() >= 10;
        long[] starts = fromInputs ? StaticInputs.ints(node, 1, "starts") : node.intsAttr("starts", null);
        long[] ends = fromInputs ? StaticInputs.ints(node, 2, "ends") : node.intsAttr("ends", null);
        long[] axes = fromInputs ? StaticInputs.ints(node, 3, "axes") : node.intsAttr("axes", null);
        long[] steps = fromInputs ? StaticInputs.ints(node, 4, "steps") : null;
        if (starts == null || ends == null) throw node.error("needs starts and ends");
        if (axes == null) {
            axes = new long[starts.length];
            for (int k = 0; k < axes.length; k++) axes[k] = k;
        }
        if (steps == null) {
            steps = new long[starts.length];
            Arrays.fill(steps, 1);
        }
        if (ends.length != starts.length || axes.length != starts.length || steps.length != starts.length) {
            throw node.error("starts, ends, axes and steps must have the same length");
        }
        long[] start = new long[shape.length];
        long[] step = new long[shape.length];
        long[] count = shape.clone();
        Arrays.fill(step, 1);
        int[] dims = Axes.normalizeAll(node, axes, shape.length);
        for (int k = 0; k < dims.length; k++) {
            int d = dims[k];
            long size = shape[d];
            if (steps[k] == 0) throw node.error("step 0 on axis " + axes[k]);
            long first = starts[k] < 0 ? starts[k] + size : starts[k];
            long end = ends[k] < 0 ? ends[k] + size : ends[k];
            if (steps[k] > 0) {
                first = clamp(first, 0, size);
                end = clamp(end, 0, size);
            } else {
                first = clamp(first, 0, size - 1);
                end = clamp(end, -1, size - 1);
            }
            // ceilDiv rounds toward positive infinity for either sign of step; an empty axis gives nothing.
            count[d] = size == 0 ? 0 : Math.max(0, Math.ceilDiv(end - first, steps[k]));
            start[d] = first;
            step[d] = steps[k];
        }
        return new Window(start, step, count);
    }

    private static long clamp(long v, long lo, long hi) { return Math.max(lo, Math.min(hi, v)); }
}
