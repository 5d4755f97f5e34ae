package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.PositScales;
import dev.byodt.compiler.dtype.harness.RoundedF32Checks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * posit.c's rounded_f32_with_fraction, which --accumulate dtype's sums call where a check proves every value zero or
 * of a scale with a fraction bit ({@link PositScales}), bit for bit against {@link PositReference} on those float32s:
 * zeros, every posit of those scales, every midpoint between neighbours (ties to the even pattern) and the float32s on
 * either side of each, every power of two of the range and its neighbours, and 100,000 seeded float32s of the range
 * (posit8 es 2 among them: its sums of at most 7 terms can pass RegimeSums' check). And PositScales' fraction bits and
 * range against the reference: 2^s (1 + 2^-f) is a posit, 2^s (1 + 2^-(f + 1)) is not, and the scales just beyond the
 * range have no 1.5 2^s.
 */
class PositRoundedF32WithFractionTest {
    static final int RANDOM_INPUTS = 100_000;

    @ParameterizedTest(name = "posit{0} es {1}")
    @CsvSource({"16, 2", "16, 0", "16, 1", "16, 3", "12, 1", "10, 2", "9, 0", "11, 3", "8, 2"})
    void roundsAsRoundedF32AtEveryScaleWithAFractionBit(int n, int es) {
        PositReference r = new PositReference(n, es);
        PositScales scales = new PositScales(n, es);
        float[] x = inputs(n, es, r, scales);
        try (PositLibrary lib = PositLibrary.compile(n, es)) {
            RoundedF32Checks.assertRoundsAs("posit" + n + " es " + es, x, lib.lib.floatToFloat("rounded_f32_with_fraction", x),
                v -> r.toDouble(r.fromDouble(v)));
        }
    }

    @ParameterizedTest(name = "posit{0} es {1}")
    @CsvSource({"16, 2", "16, 0", "16, 1", "16, 3", "12, 1", "10, 2", "9, 0", "11, 3", "8, 2", "8, 0"})
    void fractionBitsAndRangeAreThePosits(int n, int es) {
        PositReference r = new PositReference(n, es);
        PositScales scales = new PositScales(n, es);
        for (int s = scales.lowestScale(); s <= scales.highestScale(); s++) {
            int f = scales.fractionBits(s);
            double kept = Math.scalb(1.0 + Math.scalb(1.0, -f), s), cut = Math.scalb(1.0 + Math.scalb(1.0, -f - 1), s);
            assertEquals(kept, r.toDouble(r.fromDouble(kept)), "posit" + n + " es " + es + ": scale " + s + " keeps " + f + " fraction bits");
            assertTrue(f >= 1, "scale " + s + " within the range");
            assertNotEquals(cut, r.toDouble(r.fromDouble(cut)), "posit" + n + " es " + es + ": scale " + s + " keeps no more than " + f);
        }
        for (int s : new int[] {scales.lowestScale() - 1, scales.highestScale() + 1}) {
            double half = Math.scalb(1.5, s);
            assertNotEquals(half, r.toDouble(r.fromDouble(half)), "posit" + n + " es " + es + ": scale " + s + " has no fraction bit");
        }
    }

    static float[] inputs(int n, int es, PositReference r, PositScales scales) {
        PositReference wider = new PositReference(n + 1, es);
        List<Float> around = new ArrayList<>();
        long maxPos = (1L << (n - 1)) - 1;
        for (long p = 1; p < maxPos; p++) {
            RoundedF32Checks.addAround(around, (float) r.toDouble(p));
            RoundedF32Checks.addAround(around, (float) wider.toDouble(2 * p + 1)); // between p and p + 1
        }
        for (int s = scales.lowestScale(); s <= scales.highestScale() + 1; s++) RoundedF32Checks.addAround(around, Math.scalb(1.0f, s));
        Random random = new Random(20261127L + n * 4L + es);
        for (int i = 0; i < RANDOM_INPUTS; i++) {
            int scale = scales.lowestScale() + random.nextInt(scales.highestScale() - scales.lowestScale() + 1);
            around.add(Float.intBitsToFloat(random.nextInt() & 0x807fffff | (scale + 127) << 23));
        }
        List<Float> in = new ArrayList<>(List.of(0.0f, -0.0f));
        for (float v : around) {
            int scale = Math.getExponent(v);
            if (v != 0 && scale >= scales.lowestScale() && scale <= scales.highestScale()) in.add(v);
        }
        return RoundedF32Checks.array(in);
    }
}
