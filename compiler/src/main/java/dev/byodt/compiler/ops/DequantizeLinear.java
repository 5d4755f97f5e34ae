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
 * datatype of the scale (the --dtype) and is multiplied there. An 8- or 4-bit float input is a real in the
 * datatype already, and the difference is taken there.
 */
final class DequantizeLinear implements Operator {
    static void registerAll() {
        Operators.register("DequantizeLinear", new DequantizeLinear());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        ElementType quantized = node.input(0).declaredType();
        if (!quantized.isInteger() && quantized.minifloat() == null) {
            throw node.error("dequantizing " + quantized + " (input '" + node.input(0).name()
                + "') is not supported (integer types and the 8- and 4-bit floats are)");
        }
        QuantizationAxis.of(node);
        return List.of(new TensorType(node.input(1).type().elementType(), node.input(0).type().shape()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer zeroPoint = kb.input(2);
        QuantizationAxis.of(node).forEachElement(kb, (flat, parameter) -> {
            Expr scale = kb.load(kb.input(1), parameter);
            Expr quantized = kb.load(kb.input(0), flat);
            // An 8- or 4-bit float already is a real in the datatype; an integer differs from its zero point exactly.
            ScalarType difference = quantized.type() == ScalarType.REAL ? ScalarType.REAL : ScalarType.I32;
            Expr value = cast(difference, quantized);
            if (zeroPoint != null) value = sub(value, cast(difference, kb.load(zeroPoint, parameter)));
            kb.store(kb.output(0), flat, mul(cast(scale.type(), value), scale));
        });
    }
}
