package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ElementType;

import java.util.List;

/**
 * MatMulInteger (opset 10): the int32 matrix product of int8 or uint8 A and B less their zero points (inputs
 * 2 and 3, optional), computed as {@link IntegerMatMul} says; integer arithmetic, independent of the datatype.
 */
final class MatMulInteger implements Operator {
    static void registerAll() {
        Operators.register("MatMulInteger", new MatMulInteger());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        return List.of(new TensorType(ElementType.INT32, product(node).shape().output()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        product(node).emit(kb, (row, column, sum) -> sum);
    }

    private static IntegerMatMul product(Node node) {
        return IntegerMatMul.of(node, 0, 2, 1, 3);
    }
}
