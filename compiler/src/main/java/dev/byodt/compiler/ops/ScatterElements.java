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
 * ScatterElements: a copy of data in which, for every position o of indices, the element at o with its axis
 * coordinate replaced by indices[o] takes updates[o] (or combines with it, see {@link ScatterReduction}).
 */
final class ScatterElements implements Operator {
    static void registerAll() {
        Operators.register("ScatterElements", new ScatterElements());
        // Scatter (opsets 9 to 10) is ScatterElements under its old name, without reduction.
        Operators.register("Scatter", new ScatterElements());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType data = node.input(0).type();
        Value indices = node.input(1), updates = node.input(2);
        TypeRules.common(node, List.of(node.input(0), updates));
        int axis = Axes.normalize(node, node.intAttr("axis", 0), data.rank());
        if (!Arrays.equals(indices.type().shape(), updates.type().shape()) || indices.type().rank() != data.rank()) {
            throw node.error("indices " + indices.type() + " and updates " + updates.type() + " must have one shape, of data's rank");
        }
        Indices.checkConstant(node, indices, data.dim(axis), axis);
        ScatterReduction.of(node);
        return List.of(data);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer data = kb.input(0), indices = kb.input(1), updates = kb.input(2), out = kb.output(0);
        int axis = Axes.normalize(node, node.intAttr("axis", 0), data.rank());
        ScatterReduction reduction = ScatterReduction.of(node);
        kb.loop(out.size(), i -> kb.store(out, i, kb.load(data, i)));
        kb.loops(indices.shape(), u -> {
            Expr at = flatIndex(indices.shape(), u);
            Expr[] target = u.clone();
            target[axis] = Indices.position(kb.load(indices, at), data.dim(axis));
            Expr to = flatIndex(out.shape(), target);
            kb.store(out, to, reduction.combine(kb.load(out, to), kb.load(updates, at)));
        });
    }
}
