package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.harness.RoundedF32Checks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

/**
 * posit.c's rounded_f32, x rounded to the posit and read back as a float32 in one function (--accumulate dtype
 * calls it twice per multiply-add), bit for bit against {@link PositReference}: the float32 of
 * toDouble(fromDouble(x)), and a NaN (any) for NaR. Inputs: every posit, every midpoint between neighbours (the
 * (N+1)-bit posit between them, geometric where exponent bits are cut off, where ties to the even pattern
 * decide) and the float32s on either side of each, every power of two of float32's range and its neighbours
 * (below minPos and beyond maxPos included), zeros, infinities, NaNs and 100,000 seeded float32 bit patterns;
 * for posit16 with every es, narrower posits whose regimes fill the pattern at other scales, and posit8 es 2, whose
 * dot products sum in float32 too.
 */
class PositRoundedF32Test {
    static final int RANDOM_INPUTS = 100_000;

    @ParameterizedTest(name = "posit{0} es {1}")
    @CsvSource({"16, 2", "16, 0", "16, 1", "16, 3", "12, 1", "10, 2", "9, 0", "11, 3", "8, 2"})
    void roundsEveryFloatAsFromF32ThenToF32(int n, int es) {
        PositReference r = new PositReference(n, es);
        float[] x = inputs(n, es, r);
        try (PositLibrary lib = PositLibrary.compile(n, es)) {
            RoundedF32Checks.assertRoundsAs("posit" + n + " es " + es, x, lib.lib.floatToFloat("rounded_f32", x), v -> r.toDouble(r.fromDouble(v)));
        }
    }

    static float[] inputs(int n, int es, PositReference r) {
        PositReference wider = new PositReference(n + 1, es);
        List<Float> in = new ArrayList<>();
        long maxPos = (1L << (n - 1)) - 1;
        for (long p = 1; p <= maxPos; p++) {
            RoundedF32Checks.addAround(in, (float) r.toDouble(p));
            if (p < maxPos) RoundedF32Checks.addAround(in, (float) wider.toDouble(2 * p + 1)); // between p and p + 1
        }
        RoundedF32Checks.addAround(in, (float) wider.toDouble(1)); // between 0 and minPos
        RoundedF32Checks.addEveryScale(in, RANDOM_INPUTS, 20261127L + n * 4L + es);
        return RoundedF32Checks.array(in);
    }
}
