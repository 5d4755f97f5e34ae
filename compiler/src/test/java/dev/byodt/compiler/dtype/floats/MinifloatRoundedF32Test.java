package dev.byodt.compiler.dtype.floats;

import dev.byodt.compiler.dtype.BuiltInLibraries;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.floats.MinifloatLibraryTest.Format;
import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.compiler.dtype.reference.MinifloatReference.Specials;
import dev.byodt.compiler.target.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

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
        float[] got;
        try (NativeLibrary lib = compile(f)) {
            got = lib.floatToFloat("rounded_f32", x);
        }
        for (int i = 0; i < x.length; i++) {
            float want = expected(r, x[i]);
            boolean same = Float.isNaN(want) ? Float.isNaN(got[i]) : Float.floatToRawIntBits(got[i]) == Float.floatToRawIntBits(want);
            if (!same) {
                fail(f + ": rounded_f32(" + x[i] + " = 0x" + Integer.toHexString(Float.floatToRawIntBits(x[i])) + ") = "
                    + got[i] + " (0x" + Integer.toHexString(Float.floatToRawIntBits(got[i])) + "), expected " + want);
            }
        }
    }

    /** The value of the pattern fromDouble rounds x to (a NaN for the NaN pattern, where any NaN will do). */
    private static float expected(MinifloatReference r, float x) { return (float) r.toDouble(r.fromDouble(x)); }

    private static float[] inputs(Format f, MinifloatReference r) {
        List<Float> in = new ArrayList<>();
        int patterns = 1 << f.bits();
        for (int p = 0; p < patterns; p++) {
            double v = r.toDouble(p);
            if (Double.isNaN(v) || Double.isInfinite(v)) continue;
            addAround(in, (float) v);
            double next = r.toDouble(nextPattern(f, p));
            if (!Double.isNaN(next) && !Double.isInfinite(next) && next > v) {
                addAround(in, (float) ((v + next) / 2)); // exact: the midpoint has one bit more than the format
            }
        }
        for (int e = -149; e <= 127; e++) addAround(in, Math.scalb(1.0f, e));
        for (float special : new float[] {0.0f, -0.0f, Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE,
            Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.intBitsToFloat(0x7fc00000), Float.intBitsToFloat(0xffc00000),
            Float.intBitsToFloat(0x7f800001), Float.intBitsToFloat(0x7fc12345), Float.intBitsToFloat(0xff812345)}) {
            in.add(special);
        }
        Random random = new Random(20261127L);
        for (int i = 0; i < RANDOM_INPUTS; i++) in.add(Float.intBitsToFloat(random.nextInt()));
        float[] x = new float[in.size()];
        for (int i = 0; i < x.length; i++) x[i] = in.get(i);
        return x;
    }

    /** v and its float32 neighbours, of both signs. */
    private static void addAround(List<Float> in, float v) {
        for (float w : new float[] {v, Math.nextUp(v), Math.nextDown(v)}) {
            in.add(w);
            in.add(-w);
        }
    }

    /** The pattern of the next larger magnitude: patterns of one sign order like their magnitudes. */
    private static int nextPattern(Format f, int p) {
        int magnitudeMask = (1 << (f.e() + f.m())) - 1;
        return (p & magnitudeMask) == magnitudeMask ? p : p + 1;
    }

    private static NativeLibrary compile(Format f) {
        NativeLibrary.Builder b = NativeLibrary.builder(BuiltInLibraries.of(MinifloatLibraryTest.SOURCE), f.name(), f.storageBits())
            .define("MF_EXP_BITS", "" + f.e()).define("MF_FRAC_BITS", "" + f.m())
            .operations(Map.of("rounded_f32", FunctionShape.FLOAT_TO_FLOAT));
        RoundingMode.NEAREST_EVEN.defines().forEach(d -> b.define(d.substring(0, d.indexOf('=')), d.substring(d.indexOf('=') + 1)));
        if (f.specials() != Specials.IEEE) b.define("MF_SPECIALS", "MF_SPECIALS_" + f.specials());
        if (f.unsigned()) b.define("MF_UNSIGNED", "1");
        if (f.hostFlags()) Target.host().clangFlags().forEach(b::flag);
        return b.build();
    }
}
