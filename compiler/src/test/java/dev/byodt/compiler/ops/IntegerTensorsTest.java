package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Integer tensors, as shape subgraphs use them, and the folding of shape computations at compile time. */
class IntegerTensorsTest {
    @Test
    void integerArithmeticBroadcastsAndDivisionTruncates() {
        assertArrayEquals(new long[] {-3, 3}, new NodeCase("Div", 14).input(longs(-7, 7)).input(longs(2)).runOne().toLongArray());
        assertArrayEquals(new long[] {11, 12, 21, 22},
            new NodeCase("Add", 14).input(longs(new long[] {2, 1}, 10, 20)).input(longs(1, 2)).runOne().toLongArray());
        assertArrayEquals(new long[] {0, 3}, new NodeCase("Relu", 14).input(longs(-2, 3)).runOne().toLongArray());
        assertArrayEquals(new long[] {2, 7}, new NodeCase("Abs", 13).input(longs(-2, 7)).runOne().toLongArray());
    }

    @Test
    void integerPowerIsExactBeyondFloatPrecision() {
        long expected = BigInteger.valueOf(3).pow(39).longValueExact();
        Tensor y = new NodeCase("Pow", 15).input(longs(3, -2, 5)).input(longs(39, 3, 0)).runOne();
        assertArrayEquals(new long[] {expected, -8, 1}, y.toLongArray());
    }

    @Test
    void shapeStoresConstantsAndLoadsNothing() {
        Kernel kernel = new NodeCase("Shape", 15).attr("start", 1L).input(floats(new long[] {2, 3, 4}, new float[24])).kernel();
        assertTrue(kernel.loadedBuffers().isEmpty(), "Shape loaded " + kernel.loadedBuffers());
        Kernel fill = new NodeCase("ConstantOfShape", 9).constant(longs(2, 2)).kernel();
        assertTrue(fill.loadedBuffers().isEmpty(), "ConstantOfShape loaded " + fill.loadedBuffers());
    }

    @Test
    void shapeSubgraphFoldsIntoReshape() {
        // y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0), [0]), [-1])): flatten all but the first axis.
        Value x = new Value("x"), shape = new Value("shape"), first = new Value("first"), firstVector = new Value("firstVector");
        Value target = new Value("target"), y = new Value("y");
        Value zero = new Value("zero"), axes = new Value("axes"), minusOne = new Value("minusOne");
        zero.setConstant(Tensor.ofLongs(new long[0], new long[] {0}));
        axes.setConstant(longs(0));
        minusOne.setConstant(longs(-1));
        List<Node> nodes = List.of(
            node("Shape", List.of(x), shape),
            node("Gather", List.of(shape, zero), first),
            node("Unsqueeze", List.of(first, axes), firstVector),
            node("Concat", List.of(firstVector, minusOne), target, Map.of("axis", new Attribute.IntAttr(0))),
            node("Reshape", List.of(x, target), y));
        float[] values = new float[24];
        for (int i = 0; i < values.length; i++) values[i] = i;
        Tensor out = GraphRunner.run(new Graph("g", List.of(x), List.of(y), nodes),
            List.of(floats(new long[] {2, 3, 4}, values)), v -> false).getFirst();
        assertTrue(target.isConstant(), "the target shape was not folded");
        assertArrayEquals(new long[] {2, -1}, target.constant().toLongArray());
        assertArrayEquals(new long[] {2, 12}, out.shape());
        assertArrayEquals(values, out.toFloatArray());
    }

    @Test
    void constantOfShapeFillsWithTheValueAttribute() {
        Tensor y = new NodeCase("ConstantOfShape", 9).attr("value", Tensor.ofLongs(new long[] {1}, new long[] {(1L << 60) + 1}))
            .constant(longs(2)).runOne();
        assertEquals(ElementType.INT64, y.type());
        assertArrayEquals(new long[] {(1L << 60) + 1, (1L << 60) + 1}, y.toLongArray());
        assertArrayEquals(new float[] {0, 0, 0}, new NodeCase("ConstantOfShape", 9).constant(longs(3)).runOne().toFloatArray());
    }

    private static Node node(String opType, List<Value> inputs, Value output) {
        return node(opType, inputs, output, Map.of());
    }

    private static Node node(String opType, List<Value> inputs, Value output, Map<String, Attribute> attributes) {
        return new Node(output.name(), opType, "", 13, inputs, List.of(output), attributes);
    }
}
