package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * DequantizeLinear (opsets 10, 13, 19, 21): y = (x - x_zero_point) * x_scale, per tensor, per axis or per
 * block (see {@link QuantizationAxis}). The difference is exact in integers; it becomes a real in the
 * datatype of the scale (the --dtype) and is multiplied there.
 */
final class DequantizeLinear implements Operator {
    static void registerAll() {
        Operators.register("DequantizeLinear", new DequantizeLinear());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        ElementType quantized = node.input(0).declaredType();
        if (!quantized.isInteger()) {
            throw node.error("dequantizing " + quantized + " (input '" + node.input(0).name() + "') is not supported (integer types are)");
        }
        QuantizationAxis.of(node);
        return List.of(new TensorType(node.input(1).type().elementType(), node.input(0).type().shape()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer zeroPoint = kb.input(2);
        QuantizationAxis.of(node).forEachElement(kb, (flat, parameter) -> {
            Expr value = cast(ScalarType.I32, kb.load(kb.input(0), flat));
            if (zeroPoint != null) value = sub(value, cast(ScalarType.I32, kb.load(zeroPoint, parameter)));
            Expr scale = kb.load(kb.input(1), parameter);
            kb.store(kb.output(0), flat, mul(cast(scale.type(), value), scale));
        });
    }
}
