package dev.byodt.compiler.ops;

import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Operator semantics the ONNX node cases leave out (ReduceMax, the attribute forms of older opsets,
 * BatchNormalization's spatial=0, ceil_mode windows that overhang the padding, grouped dilated SAME_LOWER
 * convolution, broadcast MatMul batches) checked against naive reference loops written here in double
 * precision.
 */
class OperatorSemanticsTest {
    private final Random random = new Random(20261121);

    @Test
    void reduceMaxTakesAxesFromTheAttributeBeforeOpset18AndFromTheInputAfter() {
        Tensor x = randomTensor(2, 3, 4);
        double[] expected = new double[3];
        Arrays.fill(expected, Double.NEGATIVE_INFINITY);
        for (int n = 0; n < 2; n++)
            for (int c = 0; c < 3; c++)
                for (int w = 0; w < 4; w++) expected[c] = Math.max(expected[c], x.getFloat((n * 3 + c) * 4 + w));
        Tensor fromAttribute = new NodeCase("ReduceMax", 13).attr("axes", ints(0, -1)).attr("keepdims", 0L).input(x).runOne();
        assertClose(new long[] {3}, expected, fromAttribute);
        Tensor fromInput = new NodeCase("ReduceMax", 18).attr("keepdims", 1L).input(x).constant(longs(2, 0)).runOne();
        assertClose(new long[] {1, 3, 1}, expected, fromInput);
    }

    @Test
    void reduceSumWithNoAxesReducesEverythingUnlessNoopIsSet() {
        Tensor x = randomTensor(2, 3);
        double total = 0;
        for (int i = 0; i < 6; i++) total += x.getFloat(i);
        assertClose(new long[] {1, 1}, new double[] {total}, new NodeCase("ReduceSum", 11).input(x).runOne());
        assertClose(new long[] {}, new double[] {total / 6}, new NodeCase("ReduceMean", 13).attr("keepdims", 0L).input(x).runOne());
        Tensor identity = new NodeCase("ReduceSum", 13).attr("noop_with_empty_axes", 1L).input(x).runOne();
        assertClose(new long[] {2, 3}, toDoubles(x), identity);
    }

    @Test
    void softmaxBeforeOpset13NormalisesTheFlattenedTrailingDimensions() {
        Tensor x = randomTensor(2, 3, 4);
        double[] coerced = new double[24];
        for (int row = 0; row < 2; row++) softmax(x, coerced, row * 12, 12, 1);
        assertClose(new long[] {2, 3, 4}, coerced, new NodeCase("Softmax", 11).attr("axis", 1L).input(x).runOne());
        double[] perAxis = new double[24];
        for (int n = 0; n < 2; n++) for (int w = 0; w < 4; w++) softmax(x, perAxis, n * 12 + w, 3, 4);
        assertClose(new long[] {2, 3, 4}, perAxis, new NodeCase("Softmax", 13).attr("axis", 1L).input(x).runOne());
        double[] logs = Arrays.stream(perAxis).map(Math::log).toArray();
        assertClose(new long[] {2, 3, 4}, logs, new NodeCase("LogSoftmax", 13).attr("axis", 1L).input(x).runOne());
    }

    private static void softmax(Tensor x, double[] out, int start, int extent, int stride) {
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < extent; k++) max = Math.max(max, x.getFloat(start + k * stride));
        double sum = 0;
        for (int k = 0; k < extent; k++) sum += Math.exp(x.getFloat(start + k * stride) - max);
        for (int k = 0; k < extent; k++) out[start + k * stride] = Math.exp(x.getFloat(start + k * stride) - max) / sum;
    }

    @Test
    void batchNormalizationWithSpatialZeroHasParametersPerElementOfASample() {
        Tensor x = randomTensor(2, 3, 2);
        Tensor scale = randomTensor(3, 2);
        Tensor bias = randomTensor(3, 2);
        Tensor mean = randomTensor(3, 2);
        Tensor variance = positive(randomTensor(3, 2));
        double[] expected = new double[12];
        for (int i = 0; i < 12; i++) {
            int p = i % 6;
            expected[i] = (x.getFloat(i) - mean.getFloat(p)) / Math.sqrt(variance.getFloat(p) + 1e-3) * scale.getFloat(p) + bias.getFloat(p);
        }
        Tensor y = new NodeCase("BatchNormalization", 7).attr("spatial", 0L).attr("epsilon", 1e-3f)
            .input(x).input(scale).input(bias).input(mean).input(variance).runOne();
        assertClose(new long[] {2, 3, 2}, expected, y);
    }

    @Test
    void averagePoolCountsExplicitPaddingButNotTheCeilModeOverhang() {
        // Input 6, kernel 3, stride 2, pads 1+1, ceil_mode: 4 windows, the last covering positions 5, 6 (padding)
        // and 7 (beyond the padding, which ceil_mode adds and no mode counts).
        Tensor x = randomTensor(1, 1, 6);
        for (long includePad = 0; includePad <= 1; includePad++) {
            double[] expected = new double[4];
            for (int o = 0; o < 4; o++) {
                double sum = 0;
                int count = 0;
                for (int k = 0; k < 3; k++) {
                    int p = o * 2 - 1 + k;
                    if (p >= 0 && p < 6) sum += x.getFloat(p);
                    if (includePad == 1 ? p < 7 : p >= 0 && p < 6) count++;
                }
                expected[o] = sum / count;
            }
            Tensor y = new NodeCase("AveragePool", 19).attr("kernel_shape", ints(3)).attr("strides", ints(2))
                .attr("pads", ints(1, 1)).attr("ceil_mode", 1L).attr("count_include_pad", includePad).input(x).runOne();
            assertClose(new long[] {1, 1, 4}, expected, y);
        }
    }

    @Test
    void groupedDilatedStridedConvolutionWithSameLowerPadding() {
        long[] xShape = {1, 4, 7, 6};
        long[] wShape = {6, 2, 3, 2};
        Tensor x = randomTensor(xShape);
        Tensor w = randomTensor(wShape);
        Tensor b = randomTensor(6);
        int stride = 2;
        int[] dilation = {2, 1};
        // SAME: output ceil(in / stride); padding (out-1)*stride + (k-1)*dilation + 1 - in, the odd one before.
        int[] out = {4, 3};
        int[] padBefore = new int[2];
        for (int d = 0; d < 2; d++) {
            int total = Math.max(0, (out[d] - 1) * stride + ((int) wShape[2 + d] - 1) * dilation[d] + 1 - (int) xShape[2 + d]);
            padBefore[d] = total - total / 2;
        }
        Tensor y = new NodeCase("Conv", 11).attr("group", 2L).attr("auto_pad", "SAME_LOWER").attr("strides", ints(2, 2))
            .attr("dilations", ints(2, 1)).input(x).input(w).input(b).runOne();
        assertClose(new long[] {1, 6, 4, 3}, referenceConvolution(x, w, b, 2, stride, dilation, padBefore, out), y);
    }

    /** Stride 1 (on padded planes), several maps per group taking their terms together, a batch of two. */
    @Test
    void groupedDilatedConvolutionOnPaddedPlanes() {
        Tensor x = randomTensor(2, 4, 6, 7);
        Tensor w = randomTensor(10, 2, 3, 2);
        Tensor b = randomTensor(10);
        int[] dilation = {1, 2};
        int[] padBefore = {2, 1};
        // out = in + pads - (k-1)*dilation: 6 + 2 + 1 - 2 rows, 7 + 1 + 0 - 2 columns.
        int[] out = {7, 6};
        Tensor y = new NodeCase("Conv", 11).attr("group", 2L).attr("pads", ints(2, 1, 1, 0)).attr("dilations", ints(1, 2))
            .input(x).input(w).input(b).runOne();
        assertClose(new long[] {2, 10, 7, 6}, referenceConvolution(x, w, b, 2, 1, dilation, padBefore, out), y);
    }

    /** Conv by its definition, in double: per image, map and output position, bias plus every term inside the input. */
    private static double[] referenceConvolution(Tensor x, Tensor w, Tensor b, int groups, int stride, int[] dilation,
                                                 int[] padBefore, int[] out) {
        long[] xs = x.shape(), ws = w.shape();
        int batch = (int) xs[0], height = (int) xs[2], width = (int) xs[3];
        int maps = (int) ws[0], channelsPerGroup = (int) ws[1], kernelHeight = (int) ws[2], kernelWidth = (int) ws[3];
        double[] expected = new double[batch * maps * out[0] * out[1]];
        for (int n = 0; n < batch; n++)
            for (int m = 0; m < maps; m++) {
                int group = m / (maps / groups);
                for (int oh = 0; oh < out[0]; oh++)
                    for (int ow = 0; ow < out[1]; ow++) {
                        double sum = b.getFloat(m);
                        for (int c = 0; c < channelsPerGroup; c++)
                            for (int kh = 0; kh < kernelHeight; kh++)
                                for (int kw = 0; kw < kernelWidth; kw++) {
                                    int ih = oh * stride - padBefore[0] + kh * dilation[0];
                                    int iw = ow * stride - padBefore[1] + kw * dilation[1];
                                    if (ih < 0 || ih >= height || iw < 0 || iw >= width) continue;
                                    int channel = group * channelsPerGroup + c;
                                    sum += x.getFloat(((n * xs[1] + channel) * height + ih) * width + iw)
                                        * w.getFloat(((m * channelsPerGroup + c) * kernelHeight + kh) * kernelWidth + kw);
                                }
                        expected[((n * maps + m) * out[0] + oh) * out[1] + ow] = sum;
                    }
            }
        return expected;
    }

    @Test
    void matMulBroadcastsBatchDimensionsAndDropsVectorDimensions() {
        Tensor a = randomTensor(2, 1, 3, 4);
        Tensor b = randomTensor(5, 4, 2);
        double[] expected = new double[2 * 5 * 3 * 2];
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 5; q++)
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 2; j++) {
                        double sum = 0;
                        for (int k = 0; k < 4; k++) sum += a.getFloat((p * 3 + i) * 4 + k) * b.getFloat((q * 4 + k) * 2 + j);
                        expected[((p * 5 + q) * 3 + i) * 2 + j] = sum;
                    }
        assertClose(new long[] {2, 5, 3, 2}, expected, new NodeCase("MatMul", 13).input(a).input(b).runOne());

        Tensor v = randomTensor(4);
        double[] vectorTimesStack = new double[5 * 2];
        for (int q = 0; q < 5; q++)
            for (int j = 0; j < 2; j++)
                for (int k = 0; k < 4; k++) vectorTimesStack[q * 2 + j] += v.getFloat(k) * b.getFloat((q * 4 + k) * 2 + j);
        assertClose(new long[] {5, 2}, vectorTimesStack, new NodeCase("MatMul", 13).input(v).input(b).runOne());
    }

    @Test
    void gemmTransposesScalesAndBroadcastsAColumnOfC() {
        Tensor a = randomTensor(4, 3);
        Tensor b = randomTensor(5, 4);
        Tensor c = randomTensor(3, 1);
        double[] expected = new double[15];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++) {
                double sum = 0;
                for (int k = 0; k < 4; k++) sum += a.getFloat(k * 3 + i) * b.getFloat(j * 4 + k);
                expected[i * 5 + j] = 0.5 * sum + 2 * c.getFloat(i);
            }
        Tensor y = new NodeCase("Gemm", 13).attr("transA", 1L).attr("transB", 1L).attr("alpha", 0.5f).attr("beta", 2f)
            .input(a).input(b).input(c).runOne();
        assertClose(new long[] {3, 5}, expected, y);
    }

    @Test
    void layerNormalizationBroadcastsScaleAndReportsItsStatistics() {
        Tensor x = randomTensor(2, 3, 4);
        Tensor scale = randomTensor(4);
        Tensor bias = randomTensor(1);
        double[] y = new double[24];
        double[] means = new double[2];
        double[] invStdDevs = new double[2];
        for (int n = 0; n < 2; n++) {
            double mean = 0;
            for (int i = 0; i < 12; i++) mean += x.getFloat(n * 12 + i) / 12;
            double variance = 0;
            for (int i = 0; i < 12; i++) variance += Math.pow(x.getFloat(n * 12 + i) - mean, 2) / 12;
            means[n] = mean;
            invStdDevs[n] = 1 / Math.sqrt(variance + 1e-5);
            for (int i = 0; i < 12; i++) y[n * 12 + i] = (x.getFloat(n * 12 + i) - mean) * invStdDevs[n] * scale.getFloat(i % 4) + bias.getFloat(0);
        }
        List<Tensor> out = new NodeCase("LayerNormalization", 17).attr("axis", 1L).input(x).input(scale).input(bias).outputs(3).run();
        assertClose(new long[] {2, 3, 4}, y, out.get(0));
        assertClose(new long[] {2, 1, 1}, means, out.get(1));
        assertClose(new long[] {2, 1, 1}, invStdDevs, out.get(2));
    }

    private static long[] ints(long... values) { return values; }

    private Tensor randomTensor(long... shape) {
        float[] values = new float[(int) Shapes.elementCount(shape, "random")];
        for (int i = 0; i < values.length; i++) values[i] = (float) random.nextGaussian();
        return Tensor.ofFloats(shape, values);
    }

    private static Tensor positive(Tensor t) {
        for (long i = 0; i < t.elementCount(); i++) t.setFloat(i, Math.abs(t.getFloat(i)) + 0.1f);
        return t;
    }

    private static double[] toDoubles(Tensor t) {
        double[] d = new double[(int) t.elementCount()];
        for (int i = 0; i < d.length; i++) d[i] = t.getDouble(i);
        return d;
    }

    private static void assertClose(long[] shape, double[] expected, Tensor actual) {
        assertArrayEquals(shape, actual.shape(), "shape");
        assertEquals(expected.length, actual.elementCount());
        for (int i = 0; i < expected.length; i++) {
            double a = actual.getDouble(i);
            if (Math.abs(a - expected[i]) > 1e-5 + 1e-4 * Math.abs(expected[i])) {
                fail("element " + i + ": expected " + expected[i] + ", got " + a);
            }
        }
    }
}
