package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ElementType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;

/**
 * QLinearConv (opset 10): the convolution of quantized x by quantized weights w (inputs x, x_scale, x_zero_point,
 * w, w_scale, w_zero_point, y_scale, y_zero_point, then the optional int32 bias B), accumulated exactly in int32
 * ({@link IntegerConv}), plus B, and requantized to y's scale and zero point in the datatype
 * ({@link Requantization}). The scale and zero point of w are one per tensor or one per output channel, those of
 * x and y one per tensor.
 */
final class QLinearConv implements Operator {
    static void registerAll() {
        Operators.register("QLinearConv", new QLinearConv());
    }

    private record Parameters(IntegerConv convolution, QuantizationParameter xScale, QuantizationParameter wScale,
                              QuantizationParameter yScale, QuantizationParameter yZeroPoint, ElementType output) {}

    @Override
    public List<TensorType> inferTypes(Node node) {
        Parameters p = parameters(node);
        return List.of(new TensorType(p.output().computed(), p.convolution().shape().outputShape()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Parameters p = parameters(node);
        Buffer bias = kb.input(8);
        p.convolution().emit(kb, (map, sum) -> Requantization.of(p.output(), bias == null ? sum : add(sum, kb.load(bias, map)),
            p.xScale().load(kb, map), p.wScale().load(kb, map), p.yScale().load(kb, map), p.yZeroPoint().zeroPoint(kb, map)));
    }

    private static Parameters parameters(Node node) {
        IntegerConv convolution = IntegerConv.of(node, 0, 2, 3, 5);
        long maps = convolution.shape().featureMaps();
        Value bias = node.input(8);
        if (bias != null) {
            if (bias.declaredType() != ElementType.INT32) {
                throw node.error("bias B '" + bias.name() + "' is " + bias.declaredType() + "; QLinearConv takes an int32 bias");
            }
            Operands.requireBiasPerMap(node, bias.type(), maps);
        }
        ElementType output = Requantization.outputType(node, 7);
        return new Parameters(convolution,
            QuantizationParameter.scale(node, 1, "x_scale", maps, "tensor", false),
            QuantizationParameter.scale(node, 4, "w_scale", maps, "output channel", true),
            QuantizationParameter.scale(node, 6, "y_scale", maps, "tensor", false),
            QuantizationParameter.zeroPoint(node, 7, "y_zero_point", output, maps, "tensor", false), output);
    }
}
