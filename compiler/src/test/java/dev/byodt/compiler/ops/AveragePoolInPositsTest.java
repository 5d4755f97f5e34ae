package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.posit.PositReference;
import dev.byodt.compiler.dtype.reference.Rational;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigDecimal;
import java.util.Random;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * AveragePool in posits with every sum rounded (--accumulate dtype), bit for bit against exact arithmetic
 * ({@link PositReference}): a window's taps inside the input added top left to bottom right from 0, each sum
 * rounded, then divided by their count and rounded once. Windows of up to 16 taps have their taps written out
 * ({@code WindowGeometry.forEachTapUnrolled}), the 2x2 ones without bounds tests, the padded 3x3 ones (counts 4, 6
 * and 9) with them; a 5x5 window keeps the loops over taps. The inputs are posits of the whole range, with NaR, 0,
 * and the largest and smallest magnitudes of both signs among them.
 */
class AveragePoolInPositsTest {
    @ParameterizedTest(name = "posit{0}, {1}x{1} windows, stride {2}, padding {3}")
    @CsvSource({"16, 2, 2, 0", "16, 3, 1, 1", "16, 5, 1, 0", "8, 2, 2, 0", "8, 3, 1, 1"})
    void meansHaveTheBitsOfExactArithmetic(int bits, int kernel, int stride, int padding) {
        PositReference posit = new PositReference(bits, 2);
        CompileOptions options = CompileOptions.host().withDatatypes(
            DatatypeChoice.float32().withDatatype("custom[posit]" + bits).withAccumulation(AccumulationMode.DTYPE));
        int channels = 3, side = 8;
        long[] x = inputs(bits, channels * side * side, new Random(bits * 100L + kernel));
        float[] values = new float[x.length];
        for (int i = 0; i < x.length; i++) values[i] = (float) posit.toDouble(x[i]);
        int outputSide = (side + 2 * padding - kernel) / stride + 1;
        float[] actual = new NodeCase("AveragePool", 19).attr("kernel_shape", new long[] {kernel, kernel})
            .attr("strides", new long[] {stride, stride}).attr("pads", new long[] {padding, padding, padding, padding})
            .input(floats(new long[] {1, channels, side, side}, values)).run(GraphExecutor.compiled(options)).getFirst()
            .toFloatArray();
        for (int c = 0; c < channels; c++) {
            for (int row = 0; row < outputSide; row++) {
                for (int column = 0; column < outputSide; column++) {
                    long sum = 0;
                    int count = 0;
                    for (int i = row * stride - padding; i < row * stride - padding + kernel; i++) {
                        for (int j = column * stride - padding; j < column * stride - padding + kernel; j++) {
                            if (i < 0 || i >= side || j < 0 || j >= side) continue;
                            sum = posit.add(sum, x[(c * side + i) * side + j]);
                            count++;
                        }
                    }
                    float expected = mean(posit, sum, count);
                    float got = actual[(c * outputSide + row) * outputSide + column];
                    assertEquals(Float.floatToIntBits(expected), Float.floatToIntBits(got),
                        "channel " + c + ", output (" + row + ", " + column + "): " + got + ", expected " + expected);
                }
            }
        }
    }

    /** Random posit patterns, one in eight of them NaR, 0, or the largest or smallest magnitude of either sign. */
    private static long[] inputs(int bits, int count, Random random) {
        long nar = 1L << (bits - 1), mask = (1L << bits) - 1;
        long[] special = {nar, 0, nar - 1, (1 - nar) & mask, 1, mask};
        long[] x = new long[count];
        for (int i = 0; i < count; i++) {
            x[i] = random.nextInt(8) == 0 ? special[random.nextInt(special.length)] : random.nextLong(1L << bits);
        }
        return x;
    }

    /** The posit nearest sum / count, as float32 (which holds every posit8 and posit16); NaR gives NaN. */
    private static float mean(PositReference posit, long sum, int count) {
        double value = posit.toDouble(sum);
        if (Double.isNaN(value)) return Float.NaN;
        if (value == 0) return 0f;
        Rational exact = Rational.of(value).divide(Rational.of(count));
        Rational rounded = posit.roundedMagnitude(exact.abs(), exact.signum() < 0);
        float magnitude = new BigDecimal(rounded.num()).divide(new BigDecimal(rounded.den())).floatValue();
        return exact.signum() < 0 ? -magnitude : magnitude;
    }
}
