package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ElementType;

import java.util.List;

/**
 * ConvInteger (opset 10): the int32 convolution of int8 or uint8 x and w less their zero points (inputs 2 and
 * 3, optional), computed as {@link IntegerConv} says; integer arithmetic, independent of the datatype.
 */
final class ConvInteger implements Operator {
    static void registerAll() {
        Operators.register("ConvInteger", new ConvInteger());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        return List.of(new TensorType(ElementType.INT32, convolution(node).shape().outputShape()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        convolution(node).emit(kb, (map, sum) -> sum);
    }

    private static IntegerConv convolution(Node node) {
        return IntegerConv.of(node, 0, 2, 1, 3);
    }
}
