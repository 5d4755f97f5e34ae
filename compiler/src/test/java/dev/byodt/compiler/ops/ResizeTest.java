package dev.byodt.compiler.ops;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static dev.byodt.compiler.ops.NodeCase.t16;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Resize and Upsample on small inputs against the expected outputs of ONNX's node tests (the values its
 * reference implementation computes, as the test files store them), and the forms those tests leave out: the
 * attribute scales of Upsample 7, Resize 10's asymmetric sampling, nearest on integers, and the errors; and
 * bilinear upsampling in a 16-bit datatype against that datatype's rounding of each product and sum.
 */
class ResizeTest {
    private static final Tensor ONE_TO_SIXTEEN = floats(new long[] {1, 1, 4, 4},
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    private static final Tensor TWO_BY_TWO = floats(new long[] {1, 1, 2, 2}, 1, 2, 3, 4);

    @Test
    void nearestUpsamplingRepeatsEachElement() {
        Tensor y = new NodeCase("Resize", 13).attr("mode", "nearest").input(TWO_BY_TWO).omitted()
            .constant(floats(1, 1, 2, 3)).runOne();
        assertResult(new long[] {1, 1, 4, 6}, new float[] {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3,
            4, 4, 4}, y, 0);
    }

    @Test
    void cubicDownsamplingByScales() {
        Tensor y = new NodeCase("Resize", 13).attr("mode", "cubic").input(ONE_TO_SIXTEEN).omitted()
            .constant(floats(1, 1, 0.8f, 0.8f)).runOne();
        assertResult(new long[] {1, 1, 3, 3}, new float[] {1.47119140625f, 2.78125f, 4.08251953125f, 6.71142578125f,
            8.021484375f, 9.32275390625f, 11.91650390625f, 13.2265625f, 14.52783203125f}, y, 1e-6);
    }

    @Test
    void linearDownsamplingBySizesWithPytorchHalfPixel() {
        Tensor y = new NodeCase("Resize", 13).attr("mode", "linear")
            .attr("coordinate_transformation_mode", "pytorch_half_pixel")
            .input(ONE_TO_SIXTEEN).omitted().omitted().constant(longs(1, 1, 3, 1)).runOne();
        assertResult(new long[] {1, 1, 3, 1}, new float[] {1.6666666f, 7, 12.333333f}, y, 1e-6);
    }

    @Test
    void tfCropAndResizeFillsOutsideTheRegionWithTheExtrapolationValue() {
        Tensor y = new NodeCase("Resize", 13).attr("mode", "linear").attr("coordinate_transformation_mode", "tf_crop_and_resize")
            .attr("extrapolation_value", 10.0f).input(ONE_TO_SIXTEEN)
            .constant(floats(0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f)).omitted().constant(longs(1, 1, 3, 3)).runOne();
        assertResult(new long[] {1, 1, 3, 3}, new float[] {7.6000004f, 10, 10, 12.400001f, 10, 10, 10, 10, 10}, y, 1e-6);
    }

    @Test
    void antialiasWidensTheLinearKernelWhenDownsampling() {
        Tensor y = new NodeCase("Resize", 18).attr("mode", "linear").attr("antialias", 1L).input(ONE_TO_SIXTEEN).omitted()
            .constant(floats(1, 1, 0.6f, 0.6f)).runOne();
        assertResult(new long[] {1, 1, 2, 2}, new float[] {2.875f, 4.5f, 9.375f, 11}, y, 1e-6);
    }

    @Test
    void antialiasWidensTheCubicKernelWhenDownsampling() {
        Tensor y = new NodeCase("Resize", 18).attr("mode", "cubic").attr("antialias", 1L).input(ONE_TO_SIXTEEN).omitted()
            .omitted().constant(longs(1, 1, 3, 3)).runOne();
        assertResult(new long[] {1, 1, 3, 3}, new float[] {1.7750092f, 3.1200073f, 4.4650054f, 7.1550016f, 8.5f, 9.8449984f,
            12.534994f, 13.879992f, 15.224991f}, y, 1e-6);
    }

    @Test
    void halfPixelSymmetricCentresTheRoundedOutput() {
        Tensor y = new NodeCase("Resize", 19).attr("mode", "linear").attr("coordinate_transformation_mode", "half_pixel_symmetric")
            .input(TWO_BY_TWO).omitted().constant(floats(1, 1, 2.3f, 2.94f)).runOne();
        assertResult(new long[] {1, 1, 4, 5}, new float[] {1, 1.159864f, 1.5f, 1.840136f, 2, 1.5652174f, 1.7250813f, 2.0652175f,
            2.4053535f, 2.5652175f, 2.4347825f, 2.5946465f, 2.9347825f, 3.2749186f, 3.4347825f, 3, 3.159864f, 3.5f,
            3.840136f, 4}, y, 1e-6);
    }

    @Test
    void keepAspectRatioNotLargerScalesTheGivenAxesAlike() {
        // sizes 7 and 8 for a 2 x 2 input: the smaller scale, 3.5, for both, so 7 x 7.
        Tensor y = new NodeCase("Resize", 18).attr("mode", "nearest").attr("axes", new long[] {2, 3})
            .attr("keep_aspect_ratio_policy", "not_larger").input(TWO_BY_TWO).omitted().omitted().constant(longs(7, 8)).runOne();
        assertArrayEquals(new long[] {1, 1, 7, 7}, y.shape());
        // half_pixel with round_prefer_floor: outputs 0..3 read input 0 along each axis, 4..6 input 1.
        assertEquals(1, y.getFloat(3 * 7 + 3));
        assertEquals(2, y.getFloat(3 * 7 + 4));
        assertEquals(4, y.getFloat(4 * 7 + 4));
    }

    @Test
    void upsampleAndResize10SampleAsymmetricallyAndRoundNearestDown() {
        Tensor x = floats(new long[] {1, 3}, 1, 2, 4);
        float[] nearest = {1, 1, 1, 2, 2, 2, 4, 4, 4};
        assertResult(new long[] {1, 9}, nearest, new NodeCase("Upsample", 7).attr("scales", new float[] {1, 3}).input(x).runOne(), 0);
        assertResult(new long[] {1, 9}, nearest, new NodeCase("Upsample", 9).input(x).constant(floats(1, 3)).runOne(), 0);
        // asymmetric: output j reads input j / 2, and the last output repeats the edge.
        float[] linear = {1, 1.5f, 2, 3, 4, 4};
        assertResult(new long[] {1, 6}, linear, new NodeCase("Resize", 10).attr("mode", "linear").input(x)
            .constant(floats(1, 2)).runOne(), 0);
    }

    @Test
    void nearestMovesIntegerBitsUnchanged() {
        long big = (1L << 60) + 1;
        Tensor y = new NodeCase("Resize", 13).attr("mode", "nearest").input(longs(new long[] {1, 2}, big, -big)).omitted()
            .constant(floats(1, 2)).runOne();
        assertArrayEquals(new long[] {big, big, -big, -big}, y.toLongArray());
    }

    /** Bilinear upsampling by 2 (half_pixel): taps 0.25 and 0.75 from the input, the last axis summed first. */
    @Test
    void inA16BitDatatypeEachProductAndSumRoundsLastAxisFirst() {
        float[] x = new float[12];
        Random random = new Random(20261126);
        for (int i = 0; i < x.length; i++) x[i] = (float) (random.nextDouble() * 4 - 2);
        float[] actual = new NodeCase("Resize", 13).attr("mode", "linear").input(floats(new long[] {1, 1, 3, 4}, x)).omitted()
            .constant(floats(1, 1, 2, 2)).compileAndRun(NodeCase.T16);
        assertEquals(6 * 8, actual.length);
        for (int oy = 0; oy < 6; oy++) {
            for (int ox = 0; ox < 8; ox++) {
                float outer = 0;
                for (int ty = 0; ty < 2; ty++) {
                    float inner = 0;
                    for (int tx = 0; tx < 2; tx++) {
                        float atX = x[tap(oy, ty, 3) * 4 + tap(ox, tx, 4)];
                        inner = t16(inner + t16(t16(weight(ox, tx)) * t16(atX)));
                    }
                    outer = t16(outer + t16(t16(weight(oy, ty)) * inner));
                }
                assertEquals(outer, actual[oy * 8 + ox], "output " + oy + ", " + ox);
            }
        }
    }

    /** half_pixel at scale 2: output o samples input o/2 - 1/4, between taps floor of that and the next. */
    private static int tap(int o, int t, int inputSize) {
        return Math.clamp((int) Math.floor(o / 2.0 - 0.25) + t, 0, inputSize - 1);
    }

    private static float weight(int o, int t) {
        double fraction = o / 2.0 - 0.25 - Math.floor(o / 2.0 - 0.25);
        return (float) (t == 0 ? 1 - fraction : fraction);
    }

    @Test
    void scalesComputedAtRunTimeAreAOneLineError() {
        String message = assertThrows(ByodtException.class, () -> new NodeCase("Resize", 13).input(TWO_BY_TWO).omitted()
            .input(floats(1, 1, 2, 2)).runOne()).getMessage();
        assertEquals("Resize node 'resize': input scales 'in2' must be known at compile time (a constant or computed from "
            + "constants; fix it with --bind in2=FILE.pb)", message);
    }

    @Test
    void scalesAndSizesTogetherAreAnError() {
        String message = assertThrows(ByodtException.class, () -> new NodeCase("Resize", 13).input(TWO_BY_TWO).omitted()
            .constant(floats(1, 1, 2, 2)).constant(longs(1, 1, 4, 4)).runOne()).getMessage();
        assertEquals("Resize node 'resize': exactly one of scales and sizes must be given", message);
    }

    @Test
    void linearInterpolationOfIntegersIsRefused() {
        String message = assertThrows(ByodtException.class, () -> new NodeCase("Resize", 13).attr("mode", "linear")
            .input(longs(new long[] {1, 2}, 1, 2)).omitted().constant(floats(1, 2)).runOne()).getMessage();
        assertEquals("Resize node 'resize': input X 'in0' is int64; linear interpolation needs float32 (nearest takes any type)",
            message);
    }

    private static void assertResult(long[] shape, float[] expected, Tensor actual, double tolerance) {
        assertArrayEquals(shape, actual.shape());
        float[] values = actual.toFloatArray();
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], values[i], tolerance * Math.max(1, Math.abs(expected[i])), "element " + i);
        }
    }
}
