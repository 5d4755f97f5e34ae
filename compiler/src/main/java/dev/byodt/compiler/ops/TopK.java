package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.runtime.ElementType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.or;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * TopK: the k largest (largest=1, the default) or smallest elements along an axis (default -1), sorted, with
 * their int64 positions; among equal elements the lower position comes first, as ONNX specifies. k is the
 * attribute before opset 10 and a compile-time input after. Elements rank by {@link NanOrder} (NaN above every
 * number, as numpy's sort places it in ONNX's reference). Each element's place in the result is the count of
 * elements that rank before it: k comparisons per element, no data-dependent control flow but the store.
 */
final class TopK implements Operator {
    static void registerAll() {
        Operators.register("TopK", new TopK());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = node.input(0).type();
        int axis = Axes.normalize(node, node.intAttr("axis", -1), x.rank());
        long k = k(node);
        if (k < 0 || k > x.dim(axis)) throw node.error("k = " + k + " is outside [0, " + x.dim(axis) + "], the size of axis " + axis);
        long[] out = x.shape();
        out[axis] = k;
        return List.of(x.withShape(out), new TensorType(ElementType.INT64, out));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0), values = kb.output(0), indices = kb.output(1);
        long[] shape = x.shape(), outShape = values.shape();
        int axis = Axes.normalize(node, node.intAttr("axis", -1), shape.length);
        boolean largest = node.intAttr("largest", 1) != 0;
        long k = outShape[axis];
        long[] outer = shape.clone();
        outer[axis] = 1;
        kb.loops(outer, o -> kb.loop(shape[axis], i -> {
            Expr[] at = o.clone();
            at[axis] = i;
            Expr element = kb.load(x, flatIndex(shape, at));
            Local place = kb.local("place", idx(0));
            kb.loop(shape[axis], j -> {
                Expr[] other = o.clone();
                other[axis] = j;
                Expr rival = kb.load(x, flatIndex(shape, other));
                Expr ranksAbove = largest ? NanOrder.above(rival, element) : NanOrder.above(element, rival);
                Expr before = or(ranksAbove, and(NanOrder.alike(rival, element), lt(j, i)));
                kb.assign(place, add(kb.get(place), select(before, idx(1), idx(0))));
            });
            kb.when(lt(kb.get(place), idx(k)), () -> {
                Expr[] to = o.clone();
                to[axis] = kb.get(place);
                kb.store(values, flatIndex(outShape, to), element);
                kb.store(indices, flatIndex(outShape, to), i);
            });
        }));
    }

    private static long k(Node node) {
        if (node.opsetVersion() < 10) {
            if (!node.hasAttribute("k")) throw node.error("needs attribute k");
            return node.intAttr("k", 0);
        }
        long[] k = StaticInputs.ints(node, 1, "K");
        if (k == null || k.length != 1) throw node.error("needs a K input of one element");
        return k[0];
    }
}
