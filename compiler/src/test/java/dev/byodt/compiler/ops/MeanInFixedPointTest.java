package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.reference.FixedReference;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * The means in fixed point, bit for bit against exact arithmetic: the sum of the stored integers divided by the
 * count and rounded once, as docs/datatypes.md's fixed-point contract says (nearest, ties to even; toward zero
 * with --rounding truncate). The counts are those fxp16_13 cannot hold (4 and up: its range ends below 4), and
 * fxp8_4's (8 and up). The inputs lie on the format's grid and are small enough that no partial sum leaves its
 * range, so a sum is exact in any order; LayerNormalization's chain after the means is FixedReference's.
 */
class MeanInFixedPointTest {
    record Format(String name, int bits, int fraction, boolean truncate) {
        CompileOptions options() {
            DatatypeChoice choice = DatatypeChoice.float32().withDatatype(name);
            return CompileOptions.host().withDatatypes(truncate ? choice.withOptions(Map.of("rounding", "truncate")) : choice);
        }

        FixedReference reference() { return new FixedReference(bits, fraction, false, truncate); }

        long largest() { return (1L << (bits - 1)) - 1; }

        /** The stored integer of a mean: sum / count, exact, then rounded by the format's rule. */
        long mean(long sum, long count) {
            RoundingMode rule = truncate ? RoundingMode.DOWN : RoundingMode.HALF_EVEN;
            return new BigDecimal(BigInteger.valueOf(sum)).divide(BigDecimal.valueOf(count), 0, rule).longValueExact();
        }

        float value(long stored) { return (float) (stored / Math.pow(2, fraction)); }

        /**
         * Stored integers on the grid, each at most bound / terms in magnitude, so that the sum of any {@code terms}
         * of them stays inside the range.
         */
        long[] grid(int count, int terms, long seed) {
            Random random = new Random(seed);
            long bound = largest() / terms - 1;
            long[] stored = new long[count];
            for (int i = 0; i < count; i++) stored[i] = random.nextLong(-bound, bound + 1);
            return stored;
        }

        Tensor tensor(long[] shape, long[] stored) {
            float[] values = new float[stored.length];
            for (int i = 0; i < stored.length; i++) values[i] = value(stored[i]);
            return floats(shape, values);
        }

        @Override public String toString() { return name + (truncate ? " --rounding truncate" : ""); }
    }

    static Stream<Format> formats() {
        return Stream.of(new Format("fxp16_13", 16, 13, false), new Format("fxp8_4", 8, 4, false),
            new Format("fxp16_13", 16, 13, true));
    }

    private static void assertBits(Format f, float[] expected, Tensor actual, String what) {
        assertArrayEquals(expected, actual.toFloatArray(), what + " in " + f);
    }

    @ParameterizedTest
    @MethodSource("formats")
    void reduceMeanOverAnAxisAndOverEverything(Format f) {
        GraphExecutor compiled = GraphExecutor.compiled(f.options());
        long[] x = f.grid(2 * 6 * 3, 36, 1);
        Tensor input = f.tensor(new long[] {2, 6, 3}, x);
        float[] overAxis = new float[2 * 3];
        for (int b = 0; b < 2; b++) {
            for (int k = 0; k < 3; k++) {
                long sum = 0;
                for (int j = 0; j < 6; j++) sum += x[(b * 6 + j) * 3 + k];
                overAxis[b * 3 + k] = f.value(f.mean(sum, 6));
            }
        }
        assertBits(f, overAxis, new NodeCase("ReduceMean", 18).input(input).constant(longs(1)).run(compiled).getFirst(), "ReduceMean over 6");
        long total = 0;
        for (long v : x) total += v;
        assertBits(f, new float[] {f.value(f.mean(total, x.length))},
            new NodeCase("ReduceMean", 18).input(input).run(compiled).getFirst(), "ReduceMean over 36");
    }

    /** Mean of five tensors: a count of inputs, not of elements. */
    @ParameterizedTest
    @MethodSource("formats")
    void meanOfInputs(Format f) {
        NodeCase node = new NodeCase("Mean", 13);
        long[][] inputs = new long[5][];
        for (int i = 0; i < inputs.length; i++) {
            inputs[i] = f.grid(8, inputs.length, 10 + i);
            node.input(f.tensor(new long[] {8}, inputs[i]));
        }
        float[] expected = new float[8];
        for (int k = 0; k < 8; k++) {
            long sum = 0;
            for (long[] input : inputs) sum += input[k];
            expected[k] = f.value(f.mean(sum, inputs.length));
        }
        assertBits(f, expected, node.run(GraphExecutor.compiled(f.options())).getFirst(), "Mean of 5 inputs");
    }

    @ParameterizedTest
    @MethodSource("formats")
    void globalAveragePool(Format f) {
        GraphExecutor compiled = GraphExecutor.compiled(f.options());
        for (int side : new int[] {4, 5}) {
            int area = side * side;
            long[] x = f.grid(2 * area, area, side);
            float[] expected = new float[2];
            for (int c = 0; c < 2; c++) {
                long sum = 0;
                for (int i = 0; i < area; i++) sum += x[c * area + i];
                expected[c] = f.value(f.mean(sum, area));
            }
            assertBits(f, expected, new NodeCase("GlobalAveragePool", 1).input(f.tensor(new long[] {1, 2, side, side}, x))
                .run(compiled).getFirst(), "GlobalAveragePool over " + area);
        }
    }

    /**
     * 3x3 windows over a 5x5 image padded by 1: without the padding counted, the corners, edges and inside
     * divide by 4, 6 and 9 (a count known at run time); with it, all by 9.
     */
    @ParameterizedTest
    @MethodSource("formats")
    void averagePool3x3(Format f) {
        GraphExecutor compiled = GraphExecutor.compiled(f.options());
        int side = 5;
        long[] x = f.grid(2 * side * side, 9, 7);
        for (long countPadding : new long[] {0, 1}) {
            float[] expected = new float[2 * side * side];
            for (int c = 0; c < 2; c++) {
                for (int row = 0; row < side; row++) {
                    for (int column = 0; column < side; column++) {
                        long sum = 0, taps = 0;
                        for (int i = row - 1; i <= row + 1; i++) {
                            for (int j = column - 1; j <= column + 1; j++) {
                                if (i < 0 || i >= side || j < 0 || j >= side) continue;
                                sum += x[(c * side + i) * side + j];
                                taps++;
                            }
                        }
                        expected[(c * side + row) * side + column] = f.value(f.mean(sum, countPadding == 1 ? 9 : taps));
                    }
                }
            }
            Tensor pooled = new NodeCase("AveragePool", 19).attr("kernel_shape", new long[] {3, 3})
                .attr("pads", new long[] {1, 1, 1, 1}).attr("count_include_pad", countPadding)
                .input(f.tensor(new long[] {1, 2, side, side}, x)).run(compiled).getFirst();
            assertBits(f, expected, pooled, "AveragePool 3x3, count_include_pad " + countPadding);
        }
    }

    /**
     * Rows of 6: the mean and the variance divide by 6, and the rest of the chain is fixed.c's operations in
     * the order the kernel computes them, each by FixedReference: the squares rounded one at a time, summed,
     * 1 / sqrt(variance + epsilon), and (x - mean) * that * scale + bias.
     */
    @ParameterizedTest
    @MethodSource("formats")
    void layerNormalization(Format f) {
        FixedReference ref = f.reference();
        int rows = 3, size = 6;
        // Deviations below 0.8 in magnitude keep six squares' sum below 4 (fxp16_13's range).
        long bound = Math.round(0.4 * (1L << f.fraction));
        Random random = new Random(5);
        long[] x = new long[rows * size];
        for (int i = 0; i < x.length; i++) x[i] = random.nextLong(-bound, bound + 1);
        float[] scales = {0.5f, -0.75f, 1.25f, 0.25f, 1, -1}, biases = {0, 0.25f, -0.5f, 1, 0.125f, -0.25f};
        float epsilon = 1e-5f;
        float[] expected = new float[x.length];
        for (int r = 0; r < rows; r++) {
            long sum = 0;
            for (int i = 0; i < size; i++) sum += x[r * size + i];
            int mean = stored(ref, f.mean(sum, size));
            int squares = 0;
            for (int i = 0; i < size; i++) {
                int deviation = ref.sub(stored(ref, x[r * size + i]), mean);
                squares = ref.add(squares, ref.mul(deviation, deviation));
            }
            int variance = stored(ref, f.mean(ref.signed(squares), size));
            int inverse = ref.div(ref.fromDouble(1), ref.sqrt(ref.add(variance, ref.fromDouble(epsilon))));
            for (int i = 0; i < size; i++) {
                int normalized = ref.mul(ref.sub(stored(ref, x[r * size + i]), mean), inverse);
                int y = ref.add(ref.mul(normalized, ref.fromDouble(scales[i])), ref.fromDouble(biases[i]));
                expected[r * size + i] = f.value(ref.signed(y));
            }
        }
        Tensor normalized = new NodeCase("LayerNormalization", 17).attr("epsilon", epsilon)
            .input(f.tensor(new long[] {rows, size}, x)).input(floats(scales)).input(floats(biases))
            .run(GraphExecutor.compiled(f.options())).getFirst();
        assertBits(f, expected, normalized, "LayerNormalization over 6");
    }

    private static int stored(FixedReference ref, long value) { return (int) value & ref.mask(); }
}
