package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.cast;

/**
 * CastLike: Cast to the element type of a second input, whose values are not read; the conversions are
 * Cast's (reals to integers truncate toward zero, int64 to int32 keeps the low 32 bits).
 */
final class CastLike implements Operator {
    static void registerAll() {
        Operators.register("CastLike", new CastLike());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        if (node.input(1) == null) throw node.error("needs a target_type input");
        return List.of(new TensorType(node.input(1).type().elementType(), node.input(0).type().shape()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        ScalarType to = kb.output(0).elementType();
        Broadcasting.map(kb, kb.output(0), List.of(kb.input(0)), x -> cast(to, x.getFirst()));
    }
}
