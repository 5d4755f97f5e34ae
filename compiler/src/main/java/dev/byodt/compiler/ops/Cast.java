package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.cast;

/**
 * Cast between the element types byodt has (float32, int32, int64). Reals become integers by truncation
 * toward zero, and int64 becomes int32 by keeping the low 32 bits, as ONNX's reference does.
 */
final class Cast implements Operator {
    static void registerAll() {
        Operators.register("Cast", new Cast());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        return List.of(new TensorType(target(node), node.input(0).type().shape()));
    }

    @Override
    public void checkAttributes(Node node) { target(node); }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        ScalarType to = ScalarType.of(target(node));
        Broadcasting.map(kb, kb.output(0), List.of(kb.input(0)), x -> cast(to, x.getFirst()));
    }

    private static ElementType target(Node node) {
        if (!node.hasAttribute("to")) throw node.error("needs attribute 'to'");
        long code = node.intAttr("to", 0);
        ElementType type = ElementType.fromOnnx((int) code);
        if (type == null) throw node.error("casting to " + ElementType.onnxName((int) code) + " is not supported (float32, int32 and int64 are)");
        return type;
    }
}
