package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Interpreter;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.NodeLowering;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Operator semantics the ONNX node cases leave out (ReduceMax, the attribute forms of older opsets,
 * BatchNormalization's spatial=0, ceil_mode windows that overhang the padding, grouped dilated SAME_LOWER
 * convolution, broadcast MatMul batches) checked against naive reference loops written here in double
 * precision, and the errors for what byodt refuses.
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
        Tensor fromAttribute = run("ReduceMax", 13, attrs("axes", ints(0, -1), "keepdims", 0L), x).get(0);
        assertClose(new long[] {3}, expected, fromAttribute);
        Tensor fromInput = run("ReduceMax", 18, attrs("keepdims", 1L), x, Tensor.ofLongs(new long[] {2}, new long[] {2, 0})).get(0);
        assertClose(new long[] {1, 3, 1}, expected, fromInput);
    }

    @Test
    void reduceSumWithNoAxesReducesEverythingUnlessNoopIsSet() {
        Tensor x = randomTensor(2, 3);
        double total = 0;
        for (int i = 0; i < 6; i++) total += x.getFloat(i);
        assertClose(new long[] {1, 1}, new double[] {total}, run("ReduceSum", 11, attrs(), x).get(0));
        assertClose(new long[] {}, new double[] {total / 6}, run("ReduceMean", 13, attrs("keepdims", 0L), x).get(0));
        Tensor identity = run("ReduceSum", 13, attrs("noop_with_empty_axes", 1L), x).get(0);
        assertClose(new long[] {2, 3}, toDoubles(x), identity);
    }

    @Test
    void softmaxBeforeOpset13NormalisesTheFlattenedTrailingDimensions() {
        Tensor x = randomTensor(2, 3, 4);
        double[] coerced = new double[24];
        for (int row = 0; row < 2; row++) softmax(x, coerced, row * 12, 12, 1);
        assertClose(new long[] {2, 3, 4}, coerced, run("Softmax", 11, attrs("axis", 1L), x).get(0));
        double[] perAxis = new double[24];
        for (int n = 0; n < 2; n++) for (int w = 0; w < 4; w++) softmax(x, perAxis, n * 12 + w, 3, 4);
        assertClose(new long[] {2, 3, 4}, perAxis, run("Softmax", 13, attrs("axis", 1L), x).get(0));
        double[] logs = Arrays.stream(perAxis).map(Math::log).toArray();
        assertClose(new long[] {2, 3, 4}, logs, run("LogSoftmax", 13, attrs("axis", 1L), x).get(0));
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
        Tensor y = run("BatchNormalization", 7, attrs("spatial", 0L, "epsilon", 1e-3f), x, scale, bias, mean, variance).get(0);
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
            Tensor y = run("AveragePool", 19, attrs("kernel_shape", ints(3), "strides", ints(2), "pads", ints(1, 1),
                "ceil_mode", 1L, "count_include_pad", includePad), x).get(0);
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
        double[] expected = new double[6 * out[0] * out[1]];
        for (int m = 0; m < 6; m++) {
            int group = m / 3;
            for (int oh = 0; oh < out[0]; oh++)
                for (int ow = 0; ow < out[1]; ow++) {
                    double sum = b.getFloat(m);
                    for (int c = 0; c < 2; c++)
                        for (int kh = 0; kh < 3; kh++)
                            for (int kw = 0; kw < 2; kw++) {
                                int ih = oh * stride - padBefore[0] + kh * dilation[0];
                                int iw = ow * stride - padBefore[1] + kw * dilation[1];
                                if (ih < 0 || ih >= 7 || iw < 0 || iw >= 6) continue;
                                sum += x.getFloat(((group * 2 + c) * 7 + ih) * 6 + iw) * w.getFloat(((m * 2 + c) * 3 + kh) * 2 + kw);
                            }
                    expected[(m * out[0] + oh) * out[1] + ow] = sum;
                }
        }
        Tensor y = run("Conv", 11, attrs("group", 2L, "auto_pad", "SAME_LOWER", "strides", ints(2, 2), "dilations", ints(2, 1)),
            x, w, b).get(0);
        assertClose(new long[] {1, 6, 4, 3}, expected, y);
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
        assertClose(new long[] {2, 5, 3, 2}, expected, run("MatMul", 13, attrs(), a, b).get(0));

        Tensor v = randomTensor(4);
        double[] vectorTimesStack = new double[5 * 2];
        for (int q = 0; q < 5; q++)
            for (int j = 0; j < 2; j++)
                for (int k = 0; k < 4; k++) vectorTimesStack[q * 2 + j] += v.getFloat(k) * b.getFloat((q * 4 + k) * 2 + j);
        assertClose(new long[] {5, 2}, vectorTimesStack, run("MatMul", 13, attrs(), v, b).get(0));
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
        Tensor y = run("Gemm", 13, attrs("transA", 1L, "transB", 1L, "alpha", 0.5f, "beta", 2f), a, b, c).get(0);
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
        List<Tensor> out = run("LayerNormalization", 17, attrs("axis", 1L), 3, x, scale, bias);
        assertClose(new long[] {2, 3, 4}, y, out.get(0));
        assertClose(new long[] {2, 1, 1}, means, out.get(1));
        assertClose(new long[] {2, 1, 1}, invStdDevs, out.get(2));
    }

    @Test
    void refusalsAreOneLineErrorsNamingTheNode() {
        Tensor image = randomTensor(1, 2, 4, 4);
        Tensor data = randomTensor(2, 3);
        assertRefused("ReduceSum", 13, attrs(), List.of(image, Tensor.ofLongs(new long[] {1}, new long[] {1})), false,
            "must be known at compile time");
        assertRefused("MaxPool", 12, attrs("kernel_shape", ints(2, 2)), List.of(image), true, "Indices");
        assertRefused("BatchNormalization", 15, attrs("training_mode", 1L),
            List.of(image, randomTensor(2), randomTensor(2), randomTensor(2), randomTensor(2)), false, "training_mode");
        assertRefused("Conv", 11, attrs("group", 3L), List.of(image, randomTensor(3, 1, 2, 2)), false, "group=3");
        assertRefused("Gemm", 13, attrs(), List.of(data, data), false, "cannot multiply");
        assertRefused("Softmax", 13, attrs("axis", 2L), List.of(data), false, "axis=2");
        assertRefused("AveragePool", 19, attrs("kernel_shape", ints(2, 2), "auto_pad", "SAME"), List.of(image), false, "auto_pad=SAME");
    }

    private void assertRefused(String op, int opset, Map<String, Attribute> attributes, List<Tensor> inputs,
                               boolean indicesOutput, String mention) {
        List<Value> in = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            Value v = new Value("in" + i);
            // An int64 second input stands for a run-time tensor here: it gets a type but no constant.
            v.setType(new TensorType(inputs.get(i).type(), inputs.get(i).shape()));
            in.add(v);
        }
        List<Value> outputs = indicesOutput ? List.of(new Value("y"), new Value("indices")) : List.of(new Value("y"));
        Node node = new Node("n1", op, "", opset, in, outputs, attributes);
        ByodtException e = assertThrows(ByodtException.class, () -> Operators.lookup(op).inferTypes(node));
        assertTrue(e.getMessage().startsWith(op + " node 'n1': "), e.getMessage());
        assertTrue(e.getMessage().contains(mention), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    // ---- running one node

    private static List<Tensor> run(String op, int opset, Map<String, Attribute> attributes, Tensor... inputs) {
        return run(op, opset, attributes, 1, inputs);
    }

    /** Runs a node of the operator through shape inference, lowering and the interpreter. */
    private static List<Tensor> run(String op, int opset, Map<String, Attribute> attributes, int outputCount, Tensor... inputs) {
        List<Value> in = new ArrayList<>();
        for (int i = 0; i < inputs.length; i++) {
            Value v = new Value("in" + i);
            if (inputs[i].type().isInteger()) v.setConstant(inputs[i]);
            else v.setType(new TensorType(inputs[i].type(), inputs[i].shape()));
            in.add(v);
        }
        List<Value> out = new ArrayList<>();
        for (int i = 0; i < outputCount; i++) out.add(new Value("out" + i));
        Node node = new Node("n1", op, "", opset, in, out, attributes);
        List<TensorType> types = Operators.lookup(op).inferTypes(node);
        assertEquals(outputCount, types.size());
        for (int i = 0; i < outputCount; i++) out.get(i).setType(types.get(i));
        Map<Value, Buffer> buffers = new HashMap<>();
        Kernel kernel = NodeLowering.lower(node, v -> buffers.computeIfAbsent(v,
            value -> new Buffer(value.name(), ScalarType.of(value.type().elementType()), value.type().shape())));
        return Interpreter.run(kernel, Arrays.asList(inputs));
    }

    private static Map<String, Attribute> attrs(Object... nameValuePairs) {
        Map<String, Attribute> map = new LinkedHashMap<>();
        for (int i = 0; i < nameValuePairs.length; i += 2) {
            Object v = nameValuePairs[i + 1];
            Attribute a = switch (v) {
                case Long l -> new Attribute.IntAttr(l);
                case Float f -> new Attribute.FloatAttr(f);
                case String s -> new Attribute.StringAttr(s);
                case long[] l -> new Attribute.IntsAttr(l);
                default -> throw new IllegalArgumentException(v.toString());
            };
            map.put((String) nameValuePairs[i], a);
        }
        return map;
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
