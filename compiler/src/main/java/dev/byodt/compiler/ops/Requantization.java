package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * The output of QLinearMatMul and QLinearConv: their exact int32 sum of products scaled into the output's
 * quantization, {@code saturate(roundHalfEven(sum * (a_scale * b_scale / y_scale)) + y_zero_point)}. The
 * multiplier and the product are computed in the datatype of the scales (the --dtype), in that order, as ONNX
 * Runtime computes them in float32; so in float32 the result is ONNX Runtime's, bit for bit.
 */
final class Requantization {
    private Requantization() {}

    /**
     * The output's integer type: that of y_zero_point (input {@code input}), int8 or uint8, which must therefore be
     * a weight or a graph input, whose types byodt knows.
     */
    static ElementType outputType(Node node, int input) {
        Value zeroPoint = node.input(input);
        if (zeroPoint == null) throw node.error("input y_zero_point is missing (its type is the output's)");
        ElementType type = zeroPoint.declaredType();
        if (type != ElementType.INT8 && type != ElementType.UINT8) {
            throw node.error("y_zero_point '" + zeroPoint.name() + "' is " + type
                + "; it must be an int8 or uint8 weight or graph input (its type is the output's)");
        }
        return type;
    }

    /** The stored output for an int32 {@code sum}, with the scales (REAL) and output zero point of its element. */
    static Expr of(ElementType target, Expr sum, Expr aScale, Expr bScale, Expr yScale, Expr yZeroPoint) {
        Expr multiplier = div(mul(aScale, bScale), yScale);
        return QuantizeLinear.quantized(target, mul(cast(ScalarType.REAL, sum), multiplier), cast(ScalarType.I64, yZeroPoint));
    }
}
