package dev.byodt.compiler.dtype.posit;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/** Conversions between posits and float32, float64 and int32, against the reference. */
final class PositConversionChecks {
    private PositConversionChecks() {}

    /** to_f32 and to_i32 for {@code patterns}, and the conversions into posits at the interesting arguments. */
    static void all(PositLibrary lib, PositReference ref, long[] patterns) {
        toFloat(lib, ref, patterns);
        toInt(lib, ref, patterns);
        fromFloat(lib, ref, tiesAndNeighbours(ref));
        fromDouble(lib, ref, doublesAround(ref));
        fromInt(lib, ref, interestingInts(new Random(lib.n * 31L + lib.es), 100_000));
    }

    static void toFloat(PositLibrary lib, PositReference ref, long[] patterns) {
        float[] actual = lib.lib.toF32("to_f32", lib.storage(patterns));
        PositChecks.report(lib, "to_f32", patterns.length, i -> {
            float expected = ref.toFloat(patterns[i]);
            return Float.floatToRawIntBits(actual[i]) == Float.floatToRawIntBits(expected) || (Float.isNaN(expected) && Float.isNaN(actual[i]))
                ? null : "to_f32(" + PositChecks.hex(lib, patterns[i]) + ") = " + actual[i] + ", expected " + expected;
        });
    }

    static void toInt(PositLibrary lib, PositReference ref, long[] patterns) {
        int[] actual = lib.lib.toI32("to_i32", lib.storage(patterns));
        PositChecks.report(lib, "to_i32", patterns.length, i -> actual[i] == ref.toInt(patterns[i]) ? null
            : "to_i32(" + PositChecks.describe(lib, ref, patterns[i]) + ") = " + actual[i] + ", expected " + ref.toInt(patterns[i]));
    }

    static void fromFloat(PositLibrary lib, PositReference ref, float[] xs) {
        int[] actual = lib.lib.fromF32("from_f32", xs);
        long[] expected = new long[xs.length];
        java.util.stream.IntStream.range(0, xs.length).parallel().forEach(i -> expected[i] = ref.fromDouble(xs[i]));
        PositChecks.report(lib, "from_f32", xs.length, i -> actual[i] == lib.storage(expected[i]) ? null
            : "from_f32(" + xs[i] + ") = " + PositChecks.describeStorage(lib, ref, actual[i]) + ", expected " + PositChecks.describe(lib, ref, expected[i]));
    }

    static void fromDouble(PositLibrary lib, PositReference ref, double[] xs) {
        int[] actual = lib.lib.fromF64("from_f64", xs);
        long[] expected = new long[xs.length];
        java.util.stream.IntStream.range(0, xs.length).parallel().forEach(i -> expected[i] = ref.fromDouble(xs[i]));
        PositChecks.report(lib, "from_f64", xs.length, i -> actual[i] == lib.storage(expected[i]) ? null
            : "from_f64(" + xs[i] + ") = " + PositChecks.describeStorage(lib, ref, actual[i]) + ", expected " + PositChecks.describe(lib, ref, expected[i]));
    }

    static void fromInt(PositLibrary lib, PositReference ref, int[] xs) {
        int[] actual = lib.lib.fromI32("from_i32", xs);
        long[] expected = new long[xs.length];
        java.util.stream.IntStream.range(0, xs.length).parallel().forEach(i -> expected[i] = ref.fromInt(xs[i]));
        PositChecks.report(lib, "from_i32", xs.length, i -> actual[i] == lib.storage(expected[i]) ? null
            : "from_i32(" + xs[i] + ") = " + PositChecks.describeStorage(lib, ref, actual[i]) + ", expected " + PositChecks.describe(lib, ref, expected[i]));
    }

    /**
     * Every float32 that is a posit, a midpoint between neighbouring posits (a tie), or next to one of those,
     * with both signs, plus zeros, infinities, NaN, subnormals and the extremes.
     */
    static float[] tiesAndNeighbours(PositReference ref) { return tiesAndNeighbours(ref, 1); }

    /** {@link #tiesAndNeighbours(PositReference)} of every {@code stride}th posit only (and the midpoint above it). */
    static float[] tiesAndNeighbours(PositReference ref, int stride) {
        List<Float> xs = new ArrayList<>(List.of(0f, -0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
            Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE, 1e-30f, 1e30f));
        for (long p = 1; p <= ref.maxPos(); p += p < stride || p > ref.maxPos() - stride ? 1 : stride) {
            addWithNeighbours(xs, ref.value(p));
            if (p < ref.maxPos()) addWithNeighbours(xs, ref.midpointAbove(p));
        }
        float[] out = new float[xs.size()];
        for (int i = 0; i < out.length; i++) out[i] = xs.get(i);
        return out;
    }

    private static void addWithNeighbours(List<Float> xs, Exact v) {
        double d = v.toDouble();
        float f = (float) d;
        if (Float.isInfinite(f) || f == 0 || !Exact.of(f).equals(v)) return; // not a float32
        for (float x : new float[]{Math.nextDown(f), f, Math.nextUp(f)}) {
            xs.add(x);
            xs.add(-x);
        }
    }

    /** Posits and midpoints as doubles with their neighbours, and random doubles over the whole range. */
    static double[] doublesAround(PositReference ref) {
        List<Double> xs = new ArrayList<>(List.of(0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
            Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 144179.2));
        long step = Math.max(1, ref.maxPos() / 20000);
        for (long p = 1; p <= ref.maxPos(); p += step) {
            for (Exact v : p < ref.maxPos() ? new Exact[]{ref.value(p), ref.midpointAbove(p)} : new Exact[]{ref.value(p)}) {
                double d = v.toDouble();
                for (double x : new double[]{Math.nextDown(d), d, Math.nextUp(d)}) { xs.add(x); xs.add(-x); }
            }
        }
        Random random = new Random(ref.n * 7919L + ref.es);
        for (int i = 0; i < 20000; i++) xs.add(Double.longBitsToDouble(random.nextLong()));
        for (int i = 0; i < 20000; i++) xs.add(Math.scalb(random.nextDouble() - 0.5, random.nextInt(600) - 300));
        double[] out = new double[xs.size()];
        for (int i = 0; i < out.length; i++) out[i] = xs.get(i);
        return out;
    }

    static int[] interestingInts(Random random, int count) {
        int[] xs = new int[count];
        int[] fixed = {0, 1, -1, 2, 3, 7, 100, 1000, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE + 1, 1 << 30, -(1 << 30), 65535, 65536, 16777217};
        System.arraycopy(fixed, 0, xs, 0, fixed.length);
        for (int i = fixed.length; i < count; i++) {
            xs[i] = switch (i % 3) {
                case 0 -> random.nextInt();
                case 1 -> random.nextInt(2001) - 1000;
                default -> random.nextInt() >> random.nextInt(31);
            };
        }
        return xs;
    }
}
