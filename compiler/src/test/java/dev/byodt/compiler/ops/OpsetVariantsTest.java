package dev.byodt.compiler.ops;

import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The forms operators took in earlier opsets (attributes that later became inputs, opt-in broadcasting)
 * and the activations without ONNX node cases here. Expected values are worked out by hand from the specs.
 */
class OpsetVariantsTest {
    private static final float TOLERANCE = 1e-6f;

    @Test
    void clipBeforeOpset11TakesItsBoundsFromAttributes() {
        Tensor x = floats(-3, -1, 0, 2, 5);
        assertArrayEquals(new float[] {-1.5f, -1, 0, 2, 2.5f},
            new NodeCase("Clip", 6).attr("min", -1.5f).attr("max", 2.5f).input(x).runOne().toFloatArray());
        assertArrayEquals(new float[] {-1.5f, -1, 0, 2, 5},
            new NodeCase("Clip", 6).attr("min", -1.5f).input(x).runOne().toFloatArray());
    }

    @Test
    void clipFromOpset11TakesOptionalBoundInputs() {
        Tensor x = floats(-3, -1, 0, 2, 5);
        assertArrayEquals(new float[] {-3, -1, 0, 1, 1},
            new NodeCase("Clip", 13).input(x).omitted().input(floats(new long[0], 1)).runOne().toFloatArray());
    }

    @Test
    void squeezeAndUnsqueezeTakeAxesAsAttributesBeforeOpset13() {
        Tensor x = floats(new long[] {1, 3, 1, 2}, 1, 2, 3, 4, 5, 6);
        assertArrayEquals(new long[] {3, 2}, new NodeCase("Squeeze", 11).attr("axes", new long[] {0, -2}).input(x).runOne().shape());
        assertArrayEquals(new long[] {3, 2}, new NodeCase("Squeeze", 11).input(x).runOne().shape());
        Tensor y = floats(new long[] {2, 3}, 1, 2, 3, 4, 5, 6);
        Tensor unsqueezed = new NodeCase("Unsqueeze", 11).attr("axes", new long[] {0, -1}).input(y).runOne();
        assertArrayEquals(new long[] {1, 2, 3, 1}, unsqueezed.shape());
        assertArrayEquals(y.toFloatArray(), unsqueezed.toFloatArray());
        assertArrayEquals(new long[] {2, 1, 3},
            new NodeCase("Unsqueeze", 13).input(y).constant(longs(1)).runOne().shape());
    }

    @Test
    void splitTakesSizesAsAnAttributeBeforeOpset13() {
        List<Tensor> parts = new NodeCase("Split", 11).attr("split", new long[] {1, 2}).input(floats(1, 2, 3)).outputs(2).run();
        assertArrayEquals(new float[] {1}, parts.get(0).toFloatArray());
        assertArrayEquals(new float[] {2, 3}, parts.get(1).toFloatArray());
    }

    @Test
    void splitWithNumOutputsMakesTheLastPartSmaller() {
        List<Tensor> parts = new NodeCase("Split", 18).attr("num_outputs", 3L).input(floats(1, 2, 3, 4, 5, 6, 7)).outputs(3).run();
        assertArrayEquals(new float[] {1, 2, 3}, parts.get(0).toFloatArray());
        assertArrayEquals(new float[] {4, 5, 6}, parts.get(1).toFloatArray());
        assertArrayEquals(new float[] {7}, parts.get(2).toFloatArray());
    }

    @Test
    void sliceTakesAttributesBeforeOpset10() {
        Tensor x = floats(new long[] {2, 4}, 0, 1, 2, 3, 4, 5, 6, 7);
        Tensor y = new NodeCase("Slice", 9).attr("starts", new long[] {1}).attr("ends", new long[] {-1})
            .attr("axes", new long[] {1}).input(x).runOne();
        assertArrayEquals(new long[] {2, 2}, y.shape());
        assertArrayEquals(new float[] {1, 2, 5, 6}, y.toFloatArray());
    }

    @Test
    void sliceClampsExtremeBoundsForNegativeSteps() {
        Tensor x = floats(0, 1, 2, 3, 4);
        assertArrayEquals(new float[] {4, 2, 0}, new NodeCase("Slice", 13).input(x).constant(longs(-1))
            .constant(longs(Long.MIN_VALUE)).omitted().constant(longs(-2)).runOne().toFloatArray());
        assertArrayEquals(new float[] {4}, new NodeCase("Slice", 13).input(x).constant(longs(Long.MAX_VALUE))
            .constant(longs(0)).omitted().constant(longs(Long.MIN_VALUE)).runOne().toFloatArray());
        assertArrayEquals(new long[] {0}, new NodeCase("Slice", 13).input(floats()).constant(longs(-1))
            .constant(longs(Long.MIN_VALUE)).omitted().constant(longs(-1)).runOne().shape());
    }

    @Test
    void padModesAndAttributeForms() {
        Tensor x = floats(1, 2, 3);
        assertArrayEquals(new float[] {3, 2, 1, 2, 3, 2},
            new NodeCase("Pad", 2).attr("pads", new long[] {2, 1}).attr("mode", "reflect").input(x).runOne().toFloatArray());
        assertArrayEquals(new float[] {9, 1, 2, 3, 9},
            new NodeCase("Pad", 1).attr("paddings", new long[] {1, 1}).attr("value", 9f).input(x).runOne().toFloatArray());
        assertArrayEquals(new float[] {2, 3, 1, 2, 3, 1, 2, 3},
            new NodeCase("Pad", 19).attr("mode", "wrap").input(x).constant(longs(2, 3)).runOne().toFloatArray());
        assertArrayEquals(new float[] {2, 3, 3},
            new NodeCase("Pad", 11).attr("mode", "edge").input(x).constant(longs(-1, 1)).runOne().toFloatArray());
        assertArrayEquals(new float[] {7, 1, 2, 3},
            new NodeCase("Pad", 13).input(x).constant(longs(1, 0)).input(floats(new long[0], 7)).runOne().toFloatArray());
    }

    @Test
    void padWithAxesPadsOnlyThoseAxes() {
        Tensor x = floats(new long[] {2, 2}, 1, 2, 3, 4);
        Tensor y = new NodeCase("Pad", 18).input(x).constant(longs(1, 0)).omitted().constant(longs(-1)).runOne();
        assertArrayEquals(new long[] {2, 3}, y.shape());
        assertArrayEquals(new float[] {0, 1, 2, 0, 3, 4}, y.toFloatArray());
    }

    @Test
    void reshapeForms() {
        Tensor x = floats(new long[] {2, 3}, 1, 2, 3, 4, 5, 6);
        assertArrayEquals(new long[] {3, 2}, new NodeCase("Reshape", 1).attr("shape", new long[] {3, -1}).input(x).runOne().shape());
        assertArrayEquals(new long[] {2, 3}, new NodeCase("Reshape", 13).input(x).constant(longs(0, -1)).runOne().shape());
        Tensor empty = floats(new long[] {0, 3});
        assertArrayEquals(new long[] {3, 0},
            new NodeCase("Reshape", 14).attr("allowzero", 1L).input(empty).constant(longs(3, 0)).runOne().shape());
    }

    @Test
    void legacyBroadcastAlignsBAtTheGivenAxis() {
        Tensor a = floats(new long[] {2, 3}, 1, 2, 3, 4, 5, 6);
        Tensor y = new NodeCase("Add", 6).attr("broadcast", 1L).attr("axis", 0L).input(a).input(floats(10, 20)).runOne();
        assertArrayEquals(new float[] {11, 12, 13, 24, 25, 26}, y.toFloatArray());
        Tensor z = new NodeCase("Mul", 6).attr("broadcast", 1L).input(a).input(floats(1, 0, -1)).runOne();
        assertArrayEquals(new float[] {1, 0, -3, 4, 0, -6}, z.toFloatArray());
    }

    @Test
    void preluBeforeOpset7SharesOneSlopeOrAppliesOnePerChannelWithoutTheBroadcastAttribute() {
        Tensor x = floats(new long[] {1, 2, 2}, -1, 2, -3, -4);
        assertArrayEquals(new float[] {-0.5f, 2, -1.5f, -2}, new NodeCase("PRelu", 6).input(x).input(floats(0.5f)).runOne().toFloatArray());
        assertArrayEquals(new float[] {-0.5f, 2, -0.75f, -1}, new NodeCase("PRelu", 6).input(x).input(floats(0.5f, 0.25f)).runOne().toFloatArray());
        Tensor slopes = floats(new long[] {2, 1}, 0.5f, 0.25f);
        assertArrayEquals(new float[] {-0.5f, 2, -0.75f, -1}, new NodeCase("PRelu", 6).input(x).input(slopes).runOne().toFloatArray());
    }

    @Test
    void activationsWithoutNodeCases() {
        Tensor x = floats(-1, 0, 1);
        assertArrayEquals(new float[] {(float) (2 * (Math.exp(-1) - 1)), 0, 1},
            new NodeCase("Elu", 6).attr("alpha", 2f).input(x).runOne().toFloatArray(), TOLERANCE);
        double alpha = 1.67326319217681884765625, gamma = 1.05070102214813232421875;
        assertArrayEquals(new float[] {(float) (gamma * (alpha * Math.exp(-1) - alpha)), 0, (float) gamma},
            new NodeCase("Selu", 6).input(x).runOne().toFloatArray(), TOLERANCE);
        assertArrayEquals(new float[] {0, 1}, new NodeCase("Log", 13).input(floats(1, (float) Math.E)).runOne().toFloatArray(), TOLERANCE);
    }

    @Test
    void castsTruncateTowardZeroAndKeepLow32Bits() {
        assertArrayEquals(new long[] {-1, 2, 3},
            new NodeCase("Cast", 13).attr("to", 7L).input(floats(-1.7f, 2.5f, 3.9f)).runOne().toLongArray());
        Tensor wide = new NodeCase("Cast", 13).attr("to", 6L).input(longs(1L << 32 | 5, -2)).runOne();
        assertEquals(ElementType.INT32, wide.type());
        assertArrayEquals(new long[] {5, -2}, wide.toLongArray());
        assertArrayEquals(new float[] {-2, 40}, new NodeCase("Cast", 13).attr("to", 1L).input(longs(-2, 40)).runOne().toFloatArray());
    }
}
