package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * DynamicQuantizeLinear (opset 11): x quantized to uint8 with a scale and zero point taken from its own range,
 * which is widened to include 0: y_scale = (max(0, max(x)) - min(0, min(x))) / 255, y_zero_point =
 * saturate(roundHalfEven(0 - min / y_scale)), y = saturate(roundHalfEven(x / y_scale) + y_zero_point). The range,
 * the scale and the quotients are computed in the datatype of x (the --dtype). Where the range is empty (x all
 * zeros) ONNX's formula divides by zero; the scale is then 1, as ONNX Runtime has it, and y and its zero point 0.
 */
final class DynamicQuantizeLinear implements Operator {
    private static final double UINT8_STEPS = 255;

    static void registerAll() {
        Operators.register("DynamicQuantizeLinear", new DynamicQuantizeLinear());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.floatInput(node, 0, "x");
        return List.of(new TensorType(ElementType.UINT8.computed(), x.shape()), Operands.floatTensor(new long[0]),
            new TensorType(ElementType.UINT8.computed(), new long[0]));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        long count = x.size();
        Expr zero = constant(ScalarType.REAL, 0);
        Local lowest = kb.local("lowest", zero);
        Local highest = kb.local("highest", zero);
        kb.loop(count, i -> {
            kb.assign(lowest, min(kb.get(lowest), kb.load(x, i)));
            kb.assign(highest, max(kb.get(highest), kb.load(x, i)));
        });
        Expr range = sub(kb.get(highest), kb.get(lowest));
        Local scale = kb.local("scale", select(eq(range, zero), constant(ScalarType.REAL, 1), div(range, constant(ScalarType.REAL, UINT8_STEPS))));
        kb.store(kb.output(1), idx(0), kb.get(scale));
        Expr noOffset = idx(0);
        Local zeroPoint = kb.local("zero_point", QuantizeLinear.quantized(ElementType.UINT8, sub(zero, div(kb.get(lowest), kb.get(scale))), noOffset));
        kb.store(kb.output(2), idx(0), kb.get(zeroPoint));
        kb.loop(count, i -> kb.store(kb.output(0), i,
            QuantizeLinear.quantized(ElementType.UINT8, div(kb.load(x, i), kb.get(scale)), cast(ScalarType.I64, kb.get(zeroPoint)))));
    }
}
