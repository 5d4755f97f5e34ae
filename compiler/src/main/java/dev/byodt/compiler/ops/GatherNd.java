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
 * GatherND: the last dimension of indices holds tuples of coordinates into data (after batch_dims leading
 * dimensions that data and indices share); each tuple picks an element or a slice. The output shape is
 * indices.shape[:-1] + data.shape[batch_dims + tuple length:].
 */
final class GatherNd implements Operator {
    static void registerAll() {
        Operators.register("GatherND", new GatherNd());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType data = node.input(0).type();
        Value indices = node.input(1);
        TypeRules.requireInteger(node, indices, "indices");
        long[] d = data.shape(), q = indices.type().shape();
        int batch = batchDims(node, d, q);
        int tuple = (int) q[q.length - 1];
        if (tuple < 1 || batch + tuple > d.length) {
            throw node.error("index tuples of length " + tuple + " do not fit data of shape " + Shapes.format(d)
                + " after " + batch + " batch dimensions");
        }
        if (indices.isConstant()) {
            long[] values = indices.constant().toLongArray();
            for (int i = 0; i < values.length; i++) {
                long size = d[batch + i % tuple];
                if (values[i] < -size || values[i] >= size) throw node.error("index " + values[i] + " is out of range for a dimension of size " + size);
            }
        }
        long[] out = new long[q.length - 1 + d.length - batch - tuple];
        System.arraycopy(q, 0, out, 0, q.length - 1);
        System.arraycopy(d, batch + tuple, out, q.length - 1, d.length - batch - tuple);
        return List.of(data.withShape(out));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer data = kb.input(0), indices = kb.input(1), out = kb.output(0);
        long[] d = data.shape(), q = indices.shape();
        int batch = batchDims(node, d, q);
        int tuple = (int) q[q.length - 1];
        int leading = q.length - 1;
        kb.loops(out.shape(), o -> {
            Expr[] source = new Expr[d.length];
            System.arraycopy(o, 0, source, 0, batch);
            Expr[] at = Arrays.copyOf(o, q.length);
            for (int k = 0; k < tuple; k++) {
                at[leading] = idx(k);
                source[batch + k] = Indices.position(kb.load(indices, flatIndex(q, at)), d[batch + k]);
            }
            System.arraycopy(o, leading, source, batch + tuple, d.length - batch - tuple);
            kb.store(out, flatIndex(out.shape(), o), kb.load(data, flatIndex(d, source)));
        });
    }

    private static int batchDims(Node node, long[] data, long[] indices) {
        long batch = node.intAttr("batch_dims", 0);
        if (indices.length < 1) throw node.error("indices must have rank 1 or more");
        if (batch < 0 || batch >= Math.min(data.length, indices.length)) {
            throw node.badAttribute("batch_dims", batch, "less than the ranks of data and indices");
        }
        for (int b = 0; b < batch; b++) {
            if (data[b] != indices[b]) {
                throw node.error("batch dimension " + b + " differs: data " + Shapes.format(data) + ", indices " + Shapes.format(indices));
            }
        }
        return (int) batch;
    }
}
