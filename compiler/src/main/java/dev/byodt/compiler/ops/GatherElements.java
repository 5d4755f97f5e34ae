package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.flatIndex;

/**
 * GatherElements: output[o] = data[o with the axis coordinate replaced by indices[o]]; the output has the
 * indices' shape, which must have data's rank.
 */
final class GatherElements implements Operator {
    static void registerAll() {
        Operators.register("GatherElements", new GatherElements());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType data = node.input(0).type();
        Value indices = node.input(1);
        int axis = Axes.normalize(node, node.intAttr("axis", 0), data.rank());
        if (indices.type().rank() != data.rank()) {
            throw node.error("indices '" + indices.name() + "' have rank " + indices.type().rank() + " but data has rank " + data.rank());
        }
        Indices.checkConstant(node, indices, data.dim(axis), axis);
        return List.of(data.withShape(indices.type().shape()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer data = kb.input(0), indices = kb.input(1), out = kb.output(0);
        int axis = Axes.normalize(node, node.intAttr("axis", 0), data.rank());
        kb.loops(out.shape(), o -> {
            Expr at = flatIndex(out.shape(), o);
            Expr[] source = o.clone();
            source[axis] = Indices.position(kb.load(indices, at), data.dim(axis));
            kb.store(out, at, kb.load(data, flatIndex(data.shape(), source)));
        });
    }
}
