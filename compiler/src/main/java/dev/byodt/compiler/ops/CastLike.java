package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;
import java.util.function.UnaryOperator;

/**
 * CastLike: Cast to the element type of a second input, whose values are not read; the conversions, and the
 * saturate and round_mode attributes, are Cast's. The target is the second input's declared type where the model declares one (a graph input),
 * else the type it is computed in.
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
        UnaryOperator<Expr> convert = Cast.converter(node, node.input(1).declaredType(), kb);
        Broadcasting.map(kb, kb.output(0), List.of(kb.input(0)), x -> convert.apply(x.getFirst()));
    }
}
