package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.Shapes;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;

/**
 * ScatterND: a copy of data in which each index tuple (the last dimension of indices) names an element or
 * slice that takes the matching entry of updates (or combines with it, see {@link ScatterReduction});
 * updates has shape indices.shape[:-1] + data.shape[tuple length:].
 */
final class ScatterNd implements Operator {
    static void registerAll() {
        Operators.register("ScatterND", new ScatterNd());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType data = node.input(0).type();
        Value indices = node.input(1), updates = node.input(2);
        TypeRules.common(node, List.of(node.input(0), updates));
        TypeRules.requireInteger(node, indices, "indices");
        long[] d = data.shape(), q = indices.type().shape();
        int tuple = q.length == 0 ? 0 : (int) q[q.length - 1];
        if (tuple < 1 || tuple > d.length) throw node.error("index tuples of length " + tuple + " do not fit data of shape " + Shapes.format(d));
        long[] expected = new long[q.length - 1 + d.length - tuple];
        System.arraycopy(q, 0, expected, 0, q.length - 1);
        System.arraycopy(d, tuple, expected, q.length - 1, d.length - tuple);
        if (!Arrays.equals(expected, updates.type().shape())) {
            throw node.error("updates have shape " + Shapes.format(updates.type().shape()) + " but need " + Shapes.format(expected));
        }
        ScatterReduction.of(node);
        return List.of(data);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer data = kb.input(0), indices = kb.input(1), updates = kb.input(2), out = kb.output(0);
        long[] d = data.shape(), q = indices.shape();
        int tuple = (int) q[q.length - 1], leading = q.length - 1;
        ScatterReduction reduction = ScatterReduction.of(node);
        kb.loop(out.size(), i -> kb.store(out, i, kb.load(data, i)));
        kb.loops(updates.shape(), u -> {
            Expr[] target = new Expr[d.length];
            Expr[] at = Arrays.copyOf(u, q.length);
            for (int k = 0; k < tuple; k++) {
                at[leading] = idx(k);
                target[k] = Indices.position(kb.load(indices, flatIndex(q, at)), d[k]);
            }
            System.arraycopy(u, leading, target, tuple, d.length - tuple);
            Expr to = flatIndex(d, target);
            kb.store(out, to, reduction.combine(kb.load(out, to), kb.load(updates, flatIndex(updates.shape(), u))));
        });
    }
}
