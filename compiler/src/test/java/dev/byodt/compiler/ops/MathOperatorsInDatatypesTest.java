package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.ops.MathReference.Reduction;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each math operator compiled in 16-bit datatypes, every scalar operation in the datatype: within a few of the
 * format's rounding steps of {@link MathReference}, and not float32's result. The activations' inputs lie on
 * a grid of 1/64 in [-3, 3), which every format here holds exactly, the reductions' and GroupNormalization's
 * anywhere in [-1, 1); the results, and the sums on the way, stay inside fxp16_13's range [-4, 4).
 * InstanceNormalization, which shares GroupNormalization's nest, is here for the channel whose scale over its
 * deviation fxp16_13 could not hold when the nest multiplied by it.
 */
@Execution(ExecutionMode.CONCURRENT)
class MathOperatorsInDatatypesTest {
    /**
     * The reductions' sums follow --accumulate, as ReduceSum's and CumSum's do: in posit16 (9 fraction bits
     * near 1024, so 1024 + 1 is a tie rounded to the even 1024) rounding every step keeps 1024 + 8 x 1 at
     * 1024, and summing exactly (quire, or float32, which holds these integers) gives 1032.
     */
    @ParameterizedTest
    @CsvSource({"dtype, 1024", "exact, 1032", "float32, 1032"})
    void sumsAccumulateAsTheAccumulationModeSays(AccumulationMode mode, float expected) {
        DatatypeChoice posit16 = DatatypeChoice.float32().withDatatype("custom[posit]16").withAccumulation(mode);
        GraphExecutor compiled = GraphExecutor.compiled(CompileOptions.host().withDatatypes(posit16));
        Tensor magnitudes = floats(1024, -1, 1, -1, 1, -1, 1, -1, 1);
        assertArrayEquals(new float[] {expected}, new NodeCase("ReduceL1", 18).input(magnitudes).run(compiled).getFirst().toFloatArray());
        Tensor roots = floats(32, -1, 1, -1, 1, -1, 1, -1, 1);
        assertArrayEquals(new float[] {expected},
            new NodeCase("ReduceSumSquare", 18).input(roots).run(compiled).getFirst().toFloatArray());
    }

    /** Float32 computes each case to within a few of its rounding steps (2^-24) too. */
    private static final double FLOAT32_TOLERANCE = 1e-6;

    /** Selections of values every format holds exactly: the same as in float32. */
    private static final Set<String> EXACT_IN_EVERY_FORMAT = Set.of("Hardmax", "ThresholdedRelu");

    /** One node on run-time inputs, with the reference result. */
    private record Case(String name, Supplier<NodeCase> node, double[] expected) {}

    private static Tensor grid(long[] shape, double range, long seed) {
        Random random = new Random(seed);
        float[] v = new float[size(shape)];
        for (int i = 0; i < v.length; i++) v[i] = (float) ((random.nextInt((int) (128 * range)) - 64 * range) / 64);
        return floats(shape, v);
    }

    /**
     * Float32 values in [-range, range) that no 16-bit format holds, so that even a reduction whose sums would
     * be exact on a grid (the smallest, the sum of magnitudes) comes out other than in float32.
     */
    private static Tensor offGrid(long[] shape, float range, long seed) {
        Random random = new Random(seed);
        float[] v = new float[size(shape)];
        for (int i = 0; i < v.length; i++) v[i] = (random.nextFloat() * 2 - 1) * range;
        return floats(shape, v);
    }

    private static int size(long[] shape) { return (int) Arrays.stream(shape).reduce(1, (a, b) -> a * b); }

    private static List<Case> cases() {
        Tensor x = grid(new long[] {24}, 3, 1);
        List<Case> cases = new ArrayList<>(List.of(
            new Case("Softplus", () -> new NodeCase("Softplus", 1).input(x), MathReference.map(x, MathReference::softplus)),
            new Case("Softsign", () -> new NodeCase("Softsign", 1).input(x), MathReference.map(x, MathReference::softsign)),
            new Case("Mish", () -> new NodeCase("Mish", 18).input(x), MathReference.map(x, MathReference::mish)),
            new Case("Celu", () -> new NodeCase("Celu", 12).attr("alpha", 0.75f).input(x),
                MathReference.map(x, v -> MathReference.celu(v, 0.75f))),
            new Case("ThresholdedRelu", () -> new NodeCase("ThresholdedRelu", 10).attr("alpha", 0.5f).input(x),
                MathReference.map(x, v -> MathReference.thresholdedRelu(v, 0.5f)))));
        Tensor rows = grid(new long[] {4, 6}, 3, 2);
        cases.add(new Case("Hardmax", () -> new NodeCase("Hardmax", 13).input(rows), hardmax(rows)));
        Tensor cube = offGrid(new long[] {2, 3, 4}, 1, 3);
        for (Reduction r : Reduction.values()) {
            cases.add(new Case(r.opType(), () -> new NodeCase(r.opType(), 18).input(cube).constant(longs(1)), r.over(cube, 1)));
        }
        // One group of 6 channels of one element: the mean and the variance divide by 6, a count fxp16_13 cannot
        // hold (its range ends below 4), so its means divide by the integer.
        Tensor image = offGrid(new long[] {2, 6, 1}, 1, 4);
        Tensor scale = floats(1, 0.5f, -0.75f, 1.25f, 0.25f, -1), bias = floats(0, 0.25f, -0.5f, 1, 0.125f, -0.25f);
        cases.add(new Case("GroupNormalization", () -> new NodeCase("GroupNormalization", 21).attr("num_groups", 1L).input(image)
            .input(scale).input(bias), MathReference.groupNormalization(image, 1, scale, bias, true, 1e-5f)));
        // A channel that varies little: scale over its deviation (4.9) is beyond fxp16_13's range, the normalized
        // values (within sqrt(2)) are not.
        Tensor channels = floats(new long[] {1, 2, 3}, 0.3f, 0.55f, 0.05f, -0.5f, 0.75f, 0.25f);
        Tensor channelScale = floats(1, -0.5f), channelBias = floats(0.5f, 0);
        cases.add(new Case("InstanceNormalization", () -> new NodeCase("InstanceNormalization", 6).input(channels)
            .input(channelScale).input(channelBias), MathReference.groupNormalization(channels, 2, channelScale, channelBias, true, 1e-5f)));
        return cases;
    }

    /** The first largest of each row: the values are exact in every format here, so ties break alike. */
    private static double[] hardmax(Tensor rows) {
        long[] shape = rows.shape();
        double[] y = new double[(int) rows.elementCount()];
        for (int r = 0; r < shape[0]; r++) {
            int best = 0;
            for (int k = 1; k < shape[1]; k++) if (rows.getFloat(r * shape[1] + k) > rows.getFloat(r * shape[1] + best)) best = k;
            y[(int) (r * shape[1] + best)] = 1;
        }
        return y;
    }

    /**
     * The tolerance is per element, absolute up to 1 and relative beyond, a few of the format's rounding steps
     * as the chained functions add them up: 8 steps of posit16 near 1 (2^-12; GroupNormalization's worst is 5),
     * 24 of fxp16_13 (2^-13; Mish's worst is 14, tanh's error times x up to 3) and 5 of bfloat16 (2^-8;
     * GroupNormalization's worst is 4).
     */
    @ParameterizedTest
    @CsvSource({"custom[posit]16, 0.002", "fxp16_13, 0.003", "bfloat16, 0.02"})
    void everyOperatorRunsInTheDatatype(String datatype, double tolerance) {
        GraphExecutor compiled = GraphExecutor.compiled(CompileOptions.host().withDatatype(datatype));
        GraphExecutor float32 = GraphExecutor.compiled(CompileOptions.host());
        for (Case c : cases()) {
            Tensor inDatatype = c.node().get().run(compiled).getFirst();
            Tensor inFloat32 = c.node().get().run(float32).getFirst();
            assertWithin(c.expected(), inDatatype, tolerance, c.name() + " in " + datatype);
            assertWithin(c.expected(), inFloat32, FLOAT32_TOLERANCE, c.name() + " in float32");
            if (EXACT_IN_EVERY_FORMAT.contains(c.name())) {
                assertArrayEquals(inFloat32.toFloatArray(), inDatatype.toFloatArray(), c.name() + " in " + datatype);
            } else {
                assertTrue(!Arrays.equals(inFloat32.toFloatArray(), inDatatype.toFloatArray()),
                    c.name() + " in " + datatype + " gives float32's result");
            }
        }
    }

    private static void assertWithin(double[] expected, Tensor actual, double tolerance, String what) {
        for (int i = 0; i < expected.length; i++) {
            double got = actual.getFloat(i);
            assertTrue(Math.abs(got - expected[i]) <= tolerance * Math.max(1, Math.abs(expected[i])),
                what + ", element " + i + ": " + got + ", expected " + expected[i]);
        }
    }
}
