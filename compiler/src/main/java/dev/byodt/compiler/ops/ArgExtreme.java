package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.not;
import static dev.byodt.compiler.kernel.Exprs.or;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * ArgMax and ArgMin: the int64 position of the largest (smallest) element along an axis, the first one among
 * equals, or the last with select_last_index=1; keepdims (default 1) keeps the axis with size 1. Elements
 * compare through the datatype's comparisons. A NaN wins, as in numpy's argmax and argmin and as ONNX's Max
 * and Min propagate it: the first NaN, or the last with select_last_index.
 */
final class ArgExtreme implements Operator {
    private final boolean largest;

    private ArgExtreme(boolean largest) {
        this.largest = largest;
    }

    static void registerAll() {
        Operators.register("ArgMax", new ArgExtreme(true));
        Operators.register("ArgMin", new ArgExtreme(false));
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = node.input(0).type();
        int axis = Axes.normalize(node, node.intAttr("axis", 0), x.rank());
        if (x.dim(axis) == 0) throw node.error("axis " + axis + " is empty; there is no extreme element");
        long[] out = x.shape();
        out[axis] = 1;
        if (node.intAttr("keepdims", 1) == 0) {
            long[] squeezed = new long[out.length - 1];
            System.arraycopy(out, 0, squeezed, 0, axis);
            System.arraycopy(out, axis + 1, squeezed, axis, out.length - axis - 1);
            out = squeezed;
        }
        return List.of(new TensorType(ElementType.INT64, out));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0), out = kb.output(0);
        long[] shape = x.shape();
        int axis = Axes.normalize(node, node.intAttr("axis", 0), shape.length);
        boolean last = node.intAttr("select_last_index", 0) != 0;
        long[] outer = shape.clone();
        outer[axis] = 1;
        kb.loops(outer, o -> {
            Local best = kb.local("best", kb.load(x, flatIndex(shape, o)));
            Local position = kb.local("position", idx(0));
            kb.loop(shape[axis] - 1, j -> {
                Expr i = add(j, 1);
                Expr[] at = o.clone();
                at[axis] = i;
                Expr candidate = kb.load(x, flatIndex(shape, at));
                Expr better = replaces(candidate, kb.get(best), last);
                // Position first: 'better' reads best, so it must still be the old one.
                kb.assign(position, select(better, i, kb.get(position)));
                kb.assign(best, select(better, candidate, kb.get(best)));
            });
            kb.store(out, flatIndex(outer, o), kb.get(position));
        });
    }

    /** Whether the candidate, coming later along the axis, replaces the best so far. */
    private Expr replaces(Expr candidate, Expr best, boolean last) {
        Expr beyond = largest ? gt(candidate, best) : gt(best, candidate);
        if (candidate.type() == ScalarType.REAL) beyond = or(beyond, and(NanOrder.isNaN(candidate), not(NanOrder.isNaN(best))));
        return last ? or(beyond, NanOrder.alike(candidate, best)) : beyond;
    }
}
