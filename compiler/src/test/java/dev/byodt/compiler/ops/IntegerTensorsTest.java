package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Integer tensors, as shape subgraphs use them; that those subgraphs fold at compile time is the loader's part
 * (OnnxLoaderTest).
 */
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
    void constantOfShapeFillsWithTheValueAttribute() {
        Tensor y = new NodeCase("ConstantOfShape", 9).attr("value", Tensor.ofLongs(new long[] {1}, new long[] {(1L << 60) + 1}))
            .constant(longs(2)).runOne();
        assertEquals(ElementType.INT64, y.type());
        assertArrayEquals(new long[] {(1L << 60) + 1, (1L << 60) + 1}, y.toLongArray());
        assertArrayEquals(new float[] {0, 0, 0}, new NodeCase("ConstantOfShape", 9).constant(longs(3)).runOne().toFloatArray());
    }
}
