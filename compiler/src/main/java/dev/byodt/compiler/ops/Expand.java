package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;

/**
 * Expand: the input broadcast (numpy-style) against a shape given as a compile-time int64 input; the result
 * has the broadcast of both shapes, so a 1 in the shape keeps the input's dimension. Elements are copied.
 */
final class Expand implements Operator {
    static void registerAll() {
        Operators.register("Expand", new Expand());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType in = node.input(0).type();
        long[] shape = StaticInputs.ints(node, 1, "shape");
        if (shape == null) throw node.error("needs a shape input");
        return List.of(in.withShape(Broadcasting.shape(node, List.of(in.shape(), shape))));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Broadcasting.map(kb, kb.output(0), List.of(kb.input(0)), List::getFirst);
    }
}
