package dev.byodt.compiler.ops;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What users see when a model asks for something these operators cannot do: one line naming node and problem. */
class OperatorErrorsTest {
    private static void assertError(String expectedPart, Executable run) {
        ByodtException e = assertThrows(ByodtException.class, run);
        assertTrue(e.getMessage().contains(expectedPart), e.getMessage());
        assertTrue(e.getMessage().matches("\\w+ node '\\w+': .*"), "the node is not named first: " + e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "multi-line message: " + e.getMessage());
    }

    @Test
    void castToATypeByodtLacksNamesTheType() {
        assertError("string", () -> new NodeCase("Cast", 13).attr("to", 8L).input(floats(1)).runOne());
    }

    @Test
    void quantizingToFloat8e8m0OrAMisshapenScaleIsRefused() {
        assertError("quantizing to float8e8m0", () -> new NodeCase("QuantizeLinear", 21).attr("output_dtype", 24L)
            .input(floats(1, 2)).constant(floats(1)).runOne());
        assertError("a per-axis scale must have shape [2]", () -> new NodeCase("DequantizeLinear", 13).attr("axis", 0L)
            .input(longs(1, 2)).constant(floats(1, 2, 3)).runOne());
        assertError("a blocked scale (block_size 2) must have shape [2]", () -> new NodeCase("QuantizeLinear", 21)
            .attr("axis", 0L).attr("block_size", 2L).input(floats(1, 2, 3)).constant(floats(1, 2, 3)).runOne());
    }

    @Test
    void quantizedProductsRefuseOperandsAndParametersOfTheWrongTypeOrShape() {
        Tensor a = longs(new long[] {2, 2}, 1, 2, 3, 4).convertedTo(ElementType.INT8);
        Tensor b = longs(new long[] {2, 1}, 5, 6).convertedTo(ElementType.INT8);
        assertError("input A 'in0' is float32; MatMulInteger takes int8 or uint8",
            () -> new NodeCase("MatMulInteger", 10).input(floats(new long[] {2, 2}, 1, 2, 3, 4)).input(b).runOne());
        assertError("a_zero_point 'c2' has shape 3; expected one value, or 2 (one per row of A)", () -> new NodeCase("MatMulInteger", 10)
            .input(a).input(b).constant(longs(1, 2, 3).convertedTo(ElementType.INT8)).runOne());
        assertError("a_zero_point 'c2' is uint8 but its operand is int8", () -> new NodeCase("MatMulInteger", 10)
            .input(a).input(b).constant(longs(1).convertedTo(ElementType.UINT8)).runOne());
        assertError("y_zero_point 'in7' is int32; it must be an int8 or uint8 weight or graph input", () -> new NodeCase("QLinearMatMul", 10)
            .input(a).constant(floats(1)).constant(longs(0).convertedTo(ElementType.INT8)).input(b).constant(floats(1))
            .constant(longs(0).convertedTo(ElementType.INT8)).constant(floats(1)).input(longs(0).convertedTo(ElementType.INT32)).runOne());
        Tensor x = longs(new long[] {1, 1, 2, 2}, 1, 2, 3, 4).convertedTo(ElementType.UINT8);
        Tensor w = longs(new long[] {2, 1, 1, 1}, 1, 2).convertedTo(ElementType.INT8);
        assertError("x_scale 'c1' has shape 2; expected one value", () -> new NodeCase("QLinearConv", 10).input(x).constant(floats(1, 2))
            .constant(longs(0).convertedTo(ElementType.UINT8)).input(w).constant(floats(1)).constant(longs(0).convertedTo(ElementType.INT8))
            .constant(floats(1)).constant(longs(0).convertedTo(ElementType.UINT8)).runOne());
        assertError("bias B 'c8' is float32; QLinearConv takes an int32 bias", () -> new NodeCase("QLinearConv", 10).input(x).constant(floats(1))
            .constant(longs(0).convertedTo(ElementType.UINT8)).input(w).constant(floats(1)).constant(longs(0).convertedTo(ElementType.INT8))
            .constant(floats(1)).constant(longs(0).convertedTo(ElementType.UINT8)).constant(floats(1, 2)).runOne());
    }

    @Test
    void shapesThatDoNotBroadcast() {
        assertError("do not broadcast", () -> new NodeCase("Add", 14).input(floats(new long[] {2, 3}, new float[6])).input(floats(1, 2, 3, 4)).runOne());
    }

    @Test
    void floatOnlyOperatorsRejectIntegers() {
        assertError("floating-point", () -> new NodeCase("Sqrt", 13).input(longs(4)).runOne());
    }

    @Test
    void shapeInputsMustBeKnownAtCompileTime() {
        assertError("compile time", () -> new NodeCase("Reshape", 13).input(floats(1, 2)).input(longs(2)).runOne());
    }

    @Test
    void unsupportedAttributeValues() {
        assertError("approximate=exact", () -> new NodeCase("Gelu", 20).attr("approximate", "exact").input(floats(1)).runOne());
        assertError("mode=circular", () -> new NodeCase("Pad", 13).attr("mode", "circular").input(floats(1)).constant(longs(1, 1)).runOne());
        assertError("perm", () -> new NodeCase("Transpose", 13).attr("perm", new long[] {0, 0}).input(floats(new long[] {1, 1}, 1)).runOne());
    }

    @Test
    void dropoutInTrainingMode() {
        assertError("training mode", () -> new NodeCase("Dropout", 13).input(floats(1)).omitted()
            .constant(Tensor.ofLongs(new long[0], new long[] {1})).runOne());
        assertError("training mode", () -> new NodeCase("Dropout", 13).input(floats(1)).omitted()
            .input(Tensor.zeros(ElementType.BOOL, new long[0])).runOne());
    }

    @Test
    void outOfRangeConstantIndicesAndAxes() {
        assertError("index 3", () -> new NodeCase("Gather", 13).input(floats(1, 2, 3)).constant(longs(3)).runOne());
        assertError("axis 2", () -> new NodeCase("Concat", 13).attr("axis", 2L).input(floats(1)).input(floats(2)).runOne());
        assertError("cannot squeeze", () -> new NodeCase("Squeeze", 13).input(floats(1, 2)).constant(longs(0)).runOne());
        assertError("cannot reshape", () -> new NodeCase("Reshape", 13).input(floats(1, 2, 3)).constant(longs(2, -1)).runOne());
    }

    @Test
    void networkLayerFeaturesByodtRefuses() {
        Tensor image = floats(new long[] {1, 2, 4, 4}, new float[32]);
        Tensor matrix = floats(new long[] {2, 3}, new float[6]);
        Tensor perChannel = floats(0, 0);
        assertError("must be known at compile time", () -> new NodeCase("ReduceSum", 13).input(image).input(longs(1)).runOne());
        assertError("storage_order=2", () -> new NodeCase("MaxPool", 12).attr("kernel_shape", new long[] {2, 2})
            .attr("storage_order", 2L).input(image).outputs(2).run());
        assertError("training outputs", () -> new NodeCase("BatchNormalization", 9).input(image)
            .input(perChannel).input(perChannel).input(perChannel).input(perChannel).outputs(2).run());
        assertError("group=3", () -> new NodeCase("Conv", 11).attr("group", 3L).input(image)
            .input(floats(new long[] {3, 1, 2, 2}, new float[12])).runOne());
        assertError("cannot multiply", () -> new NodeCase("Gemm", 13).input(matrix).input(matrix).runOne());
        assertError("axis 2 is out of range", () -> new NodeCase("Softmax", 13).attr("axis", 2L).input(matrix).runOne());
        assertError("auto_pad=SAME", () -> new NodeCase("AveragePool", 19).attr("kernel_shape", new long[] {2, 2})
            .attr("auto_pad", "SAME").input(image).runOne());
    }
}
