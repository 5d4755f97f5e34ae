package dev.byodt.compiler.dtype.harness;

import java.util.List;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * What the tests of a library's rounded_f32 (to_f32(from_f32(x)) in one function) share: the float32 inputs around
 * the values that matter, and the comparison with a reference, bit for bit but for NaN, where any NaN will do.
 */
public final class RoundedF32Checks {
    private RoundedF32Checks() {}

    /** v and its float32 neighbours, of both signs. */
    public static void addAround(List<Float> in, float v) {
        for (float w : new float[] {v, Math.nextUp(v), Math.nextDown(v)}) {
            in.add(w);
            in.add(-w);
        }
    }

    /**
     * Every power of two of float32's range and its neighbours, zeros, the extremes, infinities, NaNs of either sign
     * and several payloads, and {@code count} seeded float32 bit patterns.
     */
    public static void addEveryScale(List<Float> in, int count, long seed) {
        for (int e = -149; e <= 127; e++) addAround(in, Math.scalb(1.0f, e));
        for (float special : new float[] {0.0f, -0.0f, Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE,
            Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.intBitsToFloat(0x7fc00000), Float.intBitsToFloat(0xffc00000),
            Float.intBitsToFloat(0x7f800001), Float.intBitsToFloat(0x7fc12345), Float.intBitsToFloat(0xff812345)}) {
            in.add(special);
        }
        Random random = new Random(seed);
        for (int i = 0; i < count; i++) in.add(Float.intBitsToFloat(random.nextInt()));
    }

    public static float[] array(List<Float> in) {
        float[] x = new float[in.size()];
        for (int i = 0; i < x.length; i++) x[i] = in.get(i);
        return x;
    }

    /** Fails at the first x whose result is not the float32 of {@code expected} (a NaN for a NaN). */
    public static void assertRoundsAs(String what, float[] x, float[] got, DoubleUnaryOperator expected) {
        for (int i = 0; i < x.length; i++) {
            float want = (float) expected.applyAsDouble(x[i]);
            boolean same = Float.isNaN(want) ? Float.isNaN(got[i]) : Float.floatToRawIntBits(got[i]) == Float.floatToRawIntBits(want);
            if (!same) {
                fail(what + ": rounded_f32(" + x[i] + " = 0x" + Integer.toHexString(Float.floatToRawIntBits(x[i])) + ") = "
                    + got[i] + " (0x" + Integer.toHexString(Float.floatToRawIntBits(got[i])) + "), expected " + want);
            }
        }
    }
}
