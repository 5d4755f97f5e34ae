package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ElementType;

import java.util.List;

/**
 * QLinearMatMul (opset 10): the matrix product of quantized A and B (inputs a, a_scale, a_zero_point, b,
 * b_scale, b_zero_point, y_scale, y_zero_point), accumulated exactly in int32 ({@link IntegerMatMul}) and
 * requantized to y's scale and zero point in the datatype ({@link Requantization}). The scale and zero point of
 * A and of y are one per tensor or one per row, those of B one per tensor or one per column.
 */
final class QLinearMatMul implements Operator {
    static void registerAll() {
        Operators.register("QLinearMatMul", new QLinearMatMul());
    }

    private record Parameters(IntegerMatMul product, QuantizationParameter aScale, QuantizationParameter bScale,
                              QuantizationParameter yScale, QuantizationParameter yZeroPoint, ElementType output) {}

    @Override
    public List<TensorType> inferTypes(Node node) {
        Parameters p = parameters(node);
        return List.of(new TensorType(p.output().computed(), p.product().shape().output()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Parameters p = parameters(node);
        p.product().emit(kb, (row, column, sum) -> Requantization.of(p.output(), sum, p.aScale().load(kb, row),
            p.bScale().load(kb, column), p.yScale().load(kb, row), p.yZeroPoint().zeroPoint(kb, row)));
    }

    private static Parameters parameters(Node node) {
        IntegerMatMul product = IntegerMatMul.of(node, 0, 2, 3, 5);
        long rows = product.shape().m();
        long columns = product.shape().n();
        ElementType output = Requantization.outputType(node, 7);
        return new Parameters(product,
            QuantizationParameter.scale(node, 1, "a_scale", rows, "row of A", true),
            QuantizationParameter.scale(node, 4, "b_scale", columns, "column of B", true),
            QuantizationParameter.scale(node, 6, "y_scale", rows, "row of y", true),
            QuantizationParameter.zeroPoint(node, 7, "y_zero_point", output, rows, "row of y", true), output);
    }
}
