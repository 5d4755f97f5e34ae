package dev.byodt.compiler.dtype.floats;

import dev.byodt.compiler.dtype.floats.MinifloatLibraryTest.Format;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.harness.RoundedF32Checks;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * minifloat.c's rounded_f32, x rounded to the format and read back as a float32 in one function (--accumulate
 * dtype calls it twice per multiply-add), bit for bit against {@link MinifloatReference}: the float32 of
 * toDouble(fromDouble(x)), and a NaN (any) for the NaN pattern. Inputs: every value of the format, the
 * midpoint between each value and the next (where ties to even decide) and the float32s on either side of each,
 * every power of two of float32's range and its neighbours, zeros, float32 subnormals, infinities, NaNs of either
 * sign and several payloads, and 200,000 seeded float32 bit patterns. Every format whose library defines it
 * (MF_VIA_FLOAT): those computed in float32 arithmetic (signed, E <= 7, IEEE or FN style) and those composed of
 * from_f32 and to_f32.
 */
class MinifloatRoundedF32Test {
    static final int RANDOM_INPUTS = 200_000;

    static Stream<Format> formats() {
        return Stream.of(MinifloatLibraryTest.FP8E4M3, MinifloatLibraryTest.FP8E5M2, MinifloatLibraryTest.FP8E3M4,
            MinifloatLibraryTest.FP8E4M3FNUZ, MinifloatLibraryTest.FP6E3M2, MinifloatLibraryTest.FP4E2M1,
            MinifloatLibraryTest.UE4M3, MinifloatLibraryTest.FLOAT16, MinifloatLibraryTest.FLOAT16_HOST,
            MinifloatLibraryTest.BFLOAT16, new Format("mf_e7m8", 7, 8, 0), new Format("mf_e5m6", 5, 6, 0));
    }

    @ParameterizedTest
    @MethodSource("formats")
    void roundsEveryFloatAsFromF32ThenToF32(Format f) {
        MinifloatReference r = f.reference();
        float[] x = inputs(f, r);
        try (NativeLibrary lib = f.compile()) {
            RoundedF32Checks.assertRoundsAs(f.toString(), x, lib.floatToFloat("rounded_f32", x), v -> r.toDouble(r.fromDouble(v)));
        }
    }

    private static float[] inputs(Format f, MinifloatReference r) {
        List<Float> in = new ArrayList<>();
        int patterns = 1 << f.bits();
        for (int p = 0; p < patterns; p++) {
            double v = r.toDouble(p);
            if (Double.isNaN(v) || Double.isInfinite(v)) continue;
            RoundedF32Checks.addAround(in, (float) v);
            double next = r.toDouble(nextPattern(f, p));
            if (!Double.isNaN(next) && !Double.isInfinite(next) && next > v) {
                RoundedF32Checks.addAround(in, (float) ((v + next) / 2)); // exact: the midpoint has one bit more than the format
            }
        }
        RoundedF32Checks.addEveryScale(in, RANDOM_INPUTS, 20261127L);
        return RoundedF32Checks.array(in);
    }

    /** The pattern of the next larger magnitude: patterns of one sign order like their magnitudes. */
    private static int nextPattern(Format f, int p) {
        int magnitudeMask = (1 << (f.e() + f.m())) - 1;
        return (p & magnitudeMask) == magnitudeMask ? p : p + 1;
    }
}
