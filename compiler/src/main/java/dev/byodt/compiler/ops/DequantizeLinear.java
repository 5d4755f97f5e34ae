package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
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
        if (node.input(1) == null) throw node.error("needs an x_scale input");
        QuantizationAxis.of(node);
        return List.of(new TensorType(node.input(1).type().elementType(), node.input(0).type().shape()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        QuantizationAxis axis = QuantizationAxis.of(node);
        Buffer x = kb.input(0);
        Buffer scale = kb.input(1);
        Buffer zeroPoint = kb.input(2);
        Buffer y = kb.output(0);
        kb.loops(x.shape(), i -> {
            Expr parameter = axis.parameterIndex(scale, i);
            Expr flat = flatIndex(x.shape(), i);
            Expr value = cast(ScalarType.I32, kb.load(x, flat));
            if (zeroPoint != null) value = sub(value, cast(ScalarType.I32, kb.load(zeroPoint, parameter)));
            Expr s = kb.load(scale, parameter);
            kb.store(y, flat, mul(cast(s.type(), value), s));
        });
    }
}
