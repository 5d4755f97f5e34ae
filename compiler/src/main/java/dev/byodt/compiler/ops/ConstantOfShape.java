package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.real;

/**
 * ConstantOfShape: a tensor of the shape given by its (compile-time) input, filled with the one-element
 * tensor attribute 'value' (default float32 0). It stores constants only, so it folds at compile time.
 */
final class ConstantOfShape implements Operator {
    static void registerAll() {
        Operators.register("ConstantOfShape", new ConstantOfShape());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        long[] shape = StaticInputs.ints(node, 0, "shape");
        if (shape == null) throw node.error("needs a shape input");
        for (long d : shape) {
            if (d < 0) throw node.error("shape input has a negative dimension " + d);
        }
        return List.of(new TensorType(value(node).type(), shape));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Tensor value = value(node);
        Expr fill = value.type() == ElementType.FLOAT32
            ? real(value.getFloat(0))
            : cast(ScalarType.of(value.type()), idx(value.getLong(0)));
        kb.loop(kb.output(0).size(), i -> kb.store(kb.output(0), i, fill));
    }

    private static Tensor value(Node node) {
        Attribute a = node.attributes().get("value");
        if (a == null) return Tensor.zeros(ElementType.FLOAT32, new long[] {1});
        if (!(a instanceof Attribute.TensorAttr t) || t.value().elementCount() != 1) {
            throw node.error("attribute 'value' must be a tensor of one element");
        }
        return t.value();
    }
}
