package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear beyond the ONNX node cases: ties rounded to even,
 * saturation, blocked scales (opset 21), a dynamic range's scale and zero point, and the same results when the real part computes in another datatype. The values are
 * chosen so that x / scale is exact in every datatype tested (scales are powers of two, values short), so the
 * reference, exact decimal arithmetic with HALF_EVEN rounding, applies to all of them.
 */
class QuantizationTest {
    private static final float[] VALUES = {0.25f, 0.75f, 1.25f, -0.25f, -0.75f, -1.25f, 0.625f, -0.875f, 3.5f, -3.75f, 3.875f, 0f};
    /** 0.5 makes ties (0.25 / 0.5 = 0.5, 1.25 / 0.5 = 2.5); 1/64 makes values that saturate (3.875 * 64 = 248). */
    private static final float[] SCALES = {0.5f, 1f / 64};

    @ParameterizedTest
    @ValueSource(strings = {"float32", "custom[posit]16", "bfloat16"})
    void quantizeRoundsTiesToEvenAndSaturatesToTheZeroPointsType(String datatype) {
        GraphExecutor executor = executor(datatype);
        for (float scale : SCALES) {
            for (ElementType type : new ElementType[] {ElementType.INT8, ElementType.UINT8}) {
                long zeroPoint = type == ElementType.INT8 ? -3 : 130;
                Tensor y = new NodeCase("QuantizeLinear", 13).input(floats(VALUES)).constant(floats(scale))
                    .constant(longs(new long[] {}, zeroPoint).convertedTo(type)).run(executor).getFirst();
                assertArrayEquals(reference(VALUES, scale, zeroPoint, type), y.toLongArray(), type + " scale " + scale + " in " + datatype);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "custom[posit]16"})
    void blockedScalesQuantizeAndDequantizeEachBlockWithItsOwnParameters(String datatype) {
        GraphExecutor executor = executor(datatype);
        long[] shape = {2, 6};
        float[] x = Arrays.copyOf(VALUES, 12);
        float[] scales = {0.125f, 0.25f, 0.03125f, 0.5f, 1f, 0.0625f};
        long[] zeroPoints = {0, 10, 250, 7, 128, 3};
        Tensor q = new NodeCase("QuantizeLinear", 21).attr("axis", 1L).attr("block_size", 2L)
            .input(floats(shape, x)).constant(floats(new long[] {2, 3}, scales))
            .constant(longs(new long[] {2, 3}, zeroPoints).convertedTo(ElementType.UINT8)).run(executor).getFirst();
        long[] expected = new long[12];
        for (int i = 0; i < 12; i++) {
            int block = (i / 6) * 3 + (i % 6) / 2;
            expected[i] = reference(new float[] {x[i]}, scales[block], zeroPoints[block], ElementType.UINT8)[0];
        }
        assertArrayEquals(expected, q.toLongArray(), "quantized in " + datatype);
        Tensor back = new NodeCase("DequantizeLinear", 21).attr("axis", 1L).attr("block_size", 2L)
            .input(longs(shape, expected)).constant(floats(new long[] {2, 3}, scales))
            .constant(longs(new long[] {2, 3}, zeroPoints).convertedTo(ElementType.UINT8)).run(executor).getFirst();
        float[] dequantized = back.toFloatArray();
        for (int i = 0; i < 12; i++) {
            int block = (i / 6) * 3 + (i % 6) / 2;
            assertEquals((expected[i] - zeroPoints[block]) * scales[block], dequantized[i], 0, "dequantized [" + i + "] in " + datatype);
        }
    }

    /**
     * x spans [-5, 10.9375], so y_scale = 15.9375 / 255 = 1/16 and the zero point 80, exact in every datatype tested;
     * 0.03125 and 0.09375 are ties (0.5 and 1.5 steps). An all-zero x has an empty range: scale 1, zero point 0.
     */
    @ParameterizedTest
    @ValueSource(strings = {"float32", "custom[posit]16", "bfloat16"})
    void dynamicQuantizationTakesItsScaleAndZeroPointFromTheRange(String datatype) {
        GraphExecutor executor = executor(datatype);
        float[] x = {-5f, 10.9375f, 0f, 0.03125f, 0.09375f, -0.03125f, -0.09375f, 2.5f, -4.96875f};
        List<Tensor> out = new NodeCase("DynamicQuantizeLinear", 11).outputs(3).input(floats(x)).run(executor);
        assertArrayEquals(reference(x, 1f / 16, 80, ElementType.UINT8), out.get(0).toLongArray(), "y in " + datatype);
        assertEquals(1f / 16, out.get(1).toFloatArray()[0], "y_scale in " + datatype);
        assertArrayEquals(new long[] {80}, out.get(2).toLongArray(), "y_zero_point in " + datatype);
        List<Tensor> zeros = new NodeCase("DynamicQuantizeLinear", 11).outputs(3).input(floats(0, 0)).run(executor);
        assertArrayEquals(new long[] {0, 0}, zeros.get(0).toLongArray(), "y of zeros in " + datatype);
        assertEquals(1f, zeros.get(1).toFloatArray()[0], "y_scale of zeros in " + datatype);
        assertArrayEquals(new long[] {0}, zeros.get(2).toLongArray(), "y_zero_point of zeros in " + datatype);
    }

    /** The interpreter for float32, else the datatype compiled. */
    private static GraphExecutor executor(String datatype) {
        return datatype.equals("float32") ? GraphInterpreter::run : GraphExecutor.compiled(CompileOptions.host().withDatatype(datatype));
    }

    /** saturate(roundHalfEven(x / scale) + zeroPoint), in exact decimals. */
    private static long[] reference(float[] x, float scale, long zeroPoint, ElementType type) {
        long lowest = type.isUnsigned() ? 0 : -(1L << (type.integerBits() - 1));
        long highest = type.isUnsigned() ? (1L << type.integerBits()) - 1 : (1L << (type.integerBits() - 1)) - 1;
        return Arrays.stream(box(x)).mapToLong(v -> {
            long rounded = new BigDecimal(v).divide(new BigDecimal(scale)).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
            return Math.max(lowest, Math.min(highest, rounded + zeroPoint));
        }).toArray();
    }

    private static double[] box(float[] x) {
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) out[i] = x[i];
        return out;
    }
}
