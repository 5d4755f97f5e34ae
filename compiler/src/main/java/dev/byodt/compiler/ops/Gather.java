package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.flatIndex;

/**
 * Gather: picks entries of data along an axis by an index tensor; the output shape is data's with that
 * axis replaced by the indices' shape. Negative indices count from the end.
 */
final class Gather implements Operator {
    static void registerAll() {
        Operators.register("Gather", new Gather());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType data = node.input(0).type();
        Value indices = node.input(1);
        int axis = Axes.normalize(node, node.intAttr("axis", 0), data.rank());
        Indices.checkConstant(node, indices, data.dim(axis), axis);
        long[] d = data.shape(), q = indices.type().shape();
        long[] out = new long[d.length - 1 + q.length];
        System.arraycopy(d, 0, out, 0, axis);
        System.arraycopy(q, 0, out, axis, q.length);
        System.arraycopy(d, axis + 1, out, axis + q.length, d.length - axis - 1);
        return List.of(data.withShape(out));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer data = kb.input(0), indices = kb.input(1), out = kb.output(0);
        int axis = Axes.normalize(node, node.intAttr("axis", 0), data.rank());
        int q = indices.rank();
        long size = data.dim(axis);
        kb.loops(out.shape(), o -> {
            Expr[] source = new Expr[data.rank()];
            System.arraycopy(o, 0, source, 0, axis);
            source[axis] = Indices.position(kb.load(indices, flatIndex(indices.shape(), Arrays.copyOfRange(o, axis, axis + q))), size);
            System.arraycopy(o, axis + q, source, axis + 1, data.rank() - axis - 1);
            kb.store(out, flatIndex(out.shape(), o), kb.load(data, flatIndex(data.shape(), source)));
        });
    }
}
