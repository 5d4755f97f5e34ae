package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Stochastic rounding is unbiased: E[SR(x)] = x. A model converts each of 16 probes x, none a value of the
 * datatype, 4,096 times (the input's conversion, rounded stochastically with the counters of the elements); every
 * result must be one of x's two neighbours lo < x < hi (the model's own results with --rounding down and up), and
 * the mean error must lie within five standard deviations of the mean, 5 (hi - lo) sqrt(p (1 - p) / 4096) with
 * p = (x - lo) / (hi - lo), plus the bias that cutting the fraction to k random bits allows, (hi - lo) / 2^k. The
 * seed is fixed, so the test is deterministic. bfloat16 and posit8 with 16 random bits, posit16 with 4 and fxp8_2
 * with 2 (where the truncation bias counts); the probes keep p within [0.3, 0.7], where rounding down's error
 * p (hi - lo) exceeds that bound for every probe, which the test checks too, so that it fails for a rounding
 * that is biased (or for counters that repeat, which make all 4,096 roundings of a probe alike).
 */
class StochasticRoundingUnbiasedTest {
    private static final int PROBES = 16;
    private static final int COPIES = 4_096;

    @ParameterizedTest
    @CsvSource({"bfloat16, 16, 100", "custom[posit]8, 16, 3", "custom[posit]16, 4, 1000", "fxp8_2, 2, 20"})
    void theMeanOfManyRoundingsIsTheValue(String datatype, int srBits, double range) {
        Random random = new Random(datatype.hashCode());
        float[] candidates = new float[400];
        for (int i = 0; i < candidates.length; i++) candidates[i] = (float) ((random.nextDouble() * 2 - 1) * range);
        float[] down = convert(candidates, datatype, "down", srBits), up = convert(candidates, datatype, "up", srBits);
        List<Integer> probes = new ArrayList<>();
        for (int i = 0; i < candidates.length && probes.size() < PROBES; i++) {
            double p = (candidates[i] - down[i]) / (double) (up[i] - down[i]);
            if (down[i] < up[i] && p >= 0.3 && p <= 0.7) probes.add(i);
        }
        assertEquals(PROBES, probes.size(), "probes strictly between two values of " + datatype);
        float[] copies = new float[PROBES * COPIES];
        for (int i = 0; i < copies.length; i++) copies[i] = candidates[probes.get(i / COPIES)];
        float[] rounded = convert(copies, datatype, "stochastic", srBits);
        for (int j = 0; j < PROBES; j++) {
            int c = probes.get(j);
            double x = candidates[c], lo = down[c], hi = up[c], sum = 0;
            for (int m = j * COPIES; m < (j + 1) * COPIES; m++) {
                if (rounded[m] != lo && rounded[m] != hi) fail(datatype + ": " + x + " rounded to " + rounded[m] + ", not " + lo + " or " + hi);
                sum += rounded[m] - x;
            }
            double p = (x - lo) / (hi - lo);
            double bound = 5 * (hi - lo) * Math.sqrt(p * (1 - p) / COPIES) + (hi - lo) / (1 << srBits);
            double meanError = sum / COPIES;
            assertTrue(Math.abs(meanError) <= bound, datatype + ": mean error " + meanError + " of " + x + " beyond " + bound);
            assertTrue(Math.abs(lo - x) > bound, datatype + ": rounding " + x + " down would pass the bound " + bound);
        }
    }

    /** The values rounded to the datatype by the model's input conversion in the mode, and read back exactly. */
    private static float[] convert(float[] values, String datatype, String rounding, int srBits) {
        Program identity = DatatypePrograms.elementwise("identity", "Identity", values.length, ScalarType.REAL, x -> x);
        Map<String, String> options = rounding.equals("stochastic")
            ? Map.of("rounding", rounding, StochasticRounding.BITS_OPTION, Integer.toString(srBits)) : Map.of("rounding", rounding);
        return DatatypePrograms.run(identity, CompileOptions.host().withDatatypes(
            DatatypeChoice.float32().withDatatype(datatype).withOptions(options).withSeed(7)), values);
    }
}
