package dev.byodt.compiler.dtype.posit;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * posit16 with every es (2 is the standard's; custom[posit_es0]16, _es1, _es3): every value for the unary
 * operations and conversions,
 * float32 at every tie and its neighbours plus 300,000 seeded random floats, 300,000 seeded random pairs plus
 * edge cases for the binary operations (the integer arithmetic gets the pairs too), and the known answers.
 * {@link PositAllPairsTest} (-Pexhaustive) checks every pair.
 */
@Execution(ExecutionMode.CONCURRENT)
class Posit16Test {
    static final int PAIRS = 300_000;

    @ParameterizedTest
    @ValueSource(ints = {2, 1, 0, 3})
    void everyValueAndSampledPairs(int es) {
        PositReference ref = new PositReference(16, es);
        PositMathReference math = new PositMathReference(ref);
        long[] all = PositChecks.allPatterns(16);
        long[][] pairs = pairs(ref, new Random(16 + es), PAIRS);
        try (PositLibrary lib = PositLibrary.compile(16, es)) {
            if (es == 2) knownAnswers(lib);
            long[] a = pairs[0], b = pairs[1];
            long[] sum = expected(a, b, ref::add), difference = expected(a, b, ref::sub);
            long[] product = expected(a, b, ref::mul), quotient = expected(a, b, ref::div), root = expected(all, all, (x, y) -> ref.sqrt(x));
            checkArithmetic(lib, ref, a, b, all, sum, difference, product, quotient, root);
            try (PositLibrary integer = PositLibrary.compileIntegerArithmetic(16, es)) {
                checkArithmetic(integer, ref, a, b, all, sum, difference, product, quotient, root);
            }
            PositChecks.binary(lib, ref, "min", a, b, ref::min);
            PositChecks.binary(lib, ref, "max", a, b, ref::max);
            int[] less = lib.lib.compare("lt", lib.storage(a), lib.storage(b));
            for (int i = 0; i < a.length; i++) assertEquals(ref.compare(a[i], b[i]) < 0 ? 1 : 0, less[i]);
            PositChecks.mathBinary(lib, ref, "pow", java.util.Arrays.copyOf(a, 100_000), java.util.Arrays.copyOf(b, 100_000), math::pow);

            PositChecks.unary(lib, ref, "neg", all, p -> ref.isNar(p) ? ref.nar() : ref.round(ref.value(p).negate()));
            PositChecks.unary(lib, ref, "abs", all, p -> ref.isNar(p) ? ref.nar() : ref.round(ref.value(p).abs()));
            PositChecks.functionsAndConversions(lib, ref, all);
            PositConversionChecks.fromFloat(lib, ref, randomFloats(new Random(1600 + es), PAIRS, 14 << es));
        }
    }

    static void checkArithmetic(PositLibrary lib, PositReference ref, long[] a, long[] b, long[] all,
                                long[] sum, long[] difference, long[] product, long[] quotient, long[] root) {
        check(lib, ref, "add", a, b, sum);
        check(lib, ref, "sub", a, b, difference);
        check(lib, ref, "mul", a, b, product);
        check(lib, ref, "div", a, b, quotient);
        int[] roots = lib.lib.unary("sqrt", lib.storage(all));
        PositChecks.report(lib, "sqrt", all.length, i -> roots[i] == lib.storage(root[i]) ? null
            : "sqrt(" + PositChecks.describe(lib, ref, all[i]) + ") = " + PositChecks.describeStorage(lib, ref, roots[i]));
    }

    static void check(PositLibrary lib, PositReference ref, String op, long[] a, long[] b, long[] expected) {
        int[] actual = lib.lib.binary(op, lib.storage(a), lib.storage(b));
        PositChecks.report(lib, op, a.length, i -> actual[i] == lib.storage(expected[i]) ? null
            : op + "(" + PositChecks.describe(lib, ref, a[i]) + ", " + PositChecks.describe(lib, ref, b[i]) + ") = "
            + PositChecks.describeStorage(lib, ref, actual[i]) + ", expected " + PositChecks.describe(lib, ref, expected[i]));
    }

    static long[] expected(long[] a, long[] b, PositChecks.Binary op) {
        long[] out = new long[a.length];
        java.util.stream.IntStream.range(0, a.length).parallel().forEach(i -> out[i] = op.apply(a[i], b[i]));
        return out;
    }

    /** Edge cases crossed with each other first (0, NaR, +-minPos, +-maxPos, +-1, their neighbours), then random pairs. */
    static long[][] pairs(PositReference ref, Random random, int count) {
        long m = ref.maxPos();
        long[] edges = {0, ref.nar(), 1, 2, m, m - 1, ref.negate(1), ref.negate(2), ref.negate(m), ref.negate(m - 1),
            1L << (ref.n - 2), (1L << (ref.n - 2)) + 1, ref.negate(1L << (ref.n - 2)), (1L << (ref.n - 2)) - 1, ref.nar() + 1, ref.mask()};
        long[] a = new long[count], b = new long[count];
        int k = 0;
        for (long x : edges) for (long y : edges) { a[k] = x; b[k] = y; k++; }
        for (; k < count; k++) {
            a[k] = random.nextLong() & ref.mask();
            // Every third pair has operands of similar magnitude, where additions cancel and ties are common.
            b[k] = k % 3 == 0 ? (a[k] + random.nextInt(65) - 32) & ref.mask() : random.nextLong() & ref.mask();
        }
        return new long[][]{a, b};
    }

    /** A quarter random bit patterns (every float), the rest with scales within +-(maxScale + 9), around the posits' range. */
    static float[] randomFloats(Random random, int count, int maxScale) {
        float[] xs = new float[count];
        for (int i = 0; i < count; i++) {
            xs[i] = i % 4 == 0 ? Float.intBitsToFloat(random.nextInt())
                : (float) Math.scalb(random.nextDouble() * (random.nextBoolean() ? 1 : -1), random.nextInt(2 * maxScale + 19) - maxScale - 9);
        }
        return xs;
    }

    /** The standard's facts: posit16 minPos = 2^-56, maxPos = 2^56, 1 = 0x4000; NaR -> NaN; float specials. */
    static void knownAnswers(PositLibrary lib) {
        float[] f = lib.lib.toF32("to_f32", new int[]{0x0001, 0x7FFF, 0x4000, 0x8000, 0xFFFF});
        assertEquals(0x1p-56f, f[0]);
        assertEquals(0x1p56f, f[1]);
        assertEquals(1f, f[2]);
        assertTrue(Float.isNaN(f[3]));
        assertEquals(-0x1p-56f, f[4]);
        int[] p = lib.lib.fromF32("from_f32", new float[]{Float.NaN, Float.POSITIVE_INFINITY, -0f, 1e30f, 1e-30f, -1e-30f});
        assertArrayEquals(new int[]{0x8000, 0x8000, 0, 0x7FFF, 0x0001, 0xFFFF}, p);
    }
}
