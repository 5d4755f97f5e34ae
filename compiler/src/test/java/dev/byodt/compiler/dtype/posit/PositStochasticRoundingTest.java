package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.StochasticRounding;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Random;
import java.util.function.LongBinaryOperator;
import java.util.function.LongUnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * posit.c with --rounding stochastic, bit for bit against {@link PositReference} given the same random bits (the
 * harness passes element i the counter i, whose bits {@link StochasticRounding#randomBits} gives the reference):
 * + - * / of the pairs, sqrt of every value, from_f64 and from_f32 of every value and its neighbours and of seeded
 * doubles, from_i32, the quire's rounding. The reference takes the k bits after the N-bit pattern from the largest
 * (N + k)-bit posit not above the value, the library from its shifted bit string. The default run: every pair of
 * posit6 es 1 with 4 random bits, edge cases and 2,048 seeded pairs of posit8 es 2 and posit16 es 1 with 16;
 * -Pexhaustive every pair of posits of 4, 6 and 8 bits with every es, and 100,000 pairs of posit16 with every es,
 * with 16 and 5 bits.
 */
@Execution(ExecutionMode.CONCURRENT)
class PositStochasticRoundingTest {
    static Stream<Arguments> sampled() {
        return Stream.of(Arguments.of(6, 1, 4, 0), Arguments.of(8, 2, 16, 2_048), Arguments.of(16, 1, 16, 2_048));
    }

    static Stream<Arguments> exhaustive() {
        return Stream.of(16, 5).flatMap(bits -> IntStream.rangeClosed(0, 3).boxed().flatMap(es -> Stream.of(
            Arguments.of(4, es, bits, 0), Arguments.of(6, es, bits, 0), Arguments.of(8, es, bits, 0),
            Arguments.of(16, es, bits, PositRoundingModesTest.EXHAUSTIVE_PAIRS))));
    }

    /** The reference rounds up exactly when the random bits reach the value's cut bits' complement, worked out by hand. */
    @Test
    void referenceRoundsUpWithTheCutFractionsProbability() {
        // posit8 es 2: 1 is 0x40, the next posit 1.125 is 0x41, so 1 + 3/128 cuts 0.1875 = 3/16 of a step: the first
        // four cut bits are 0011, and four random bits round it up from 13 (0011 + 1101 carries) on.
        PositReference posit8 = new PositReference(8, 2, RoundingMode.STOCHASTIC, 4);
        Exact x = Exact.ONE.add(Exact.dyadic(java.math.BigInteger.valueOf(3), -7));
        for (int random = 0; random < 16; random++) {
            posit8.useRandomBits(random);
            assertEquals(random >= 13 ? 0x41 : 0x40, posit8.round(x), "random bits " + random);
            assertEquals(random >= 13 ? 0xbf : 0xc0, posit8.round(x.negate()), "-x, random bits " + random);
        }
    }

    /** {@code pairs} 0: every pair; else edge cases and that many seeded pairs. */
    @ParameterizedTest
    @MethodSource("sampled")
    void roundsAsTheReferenceGivenTheSameRandomBits(int n, int es, int bits, int pairs) {
        check(n, es, bits, pairs);
    }

    @Tag("exhaustive")
    @ParameterizedTest
    @MethodSource("exhaustive")
    void everyPositAndPairRoundsAsTheReference(int n, int es, int bits, int pairs) {
        check(n, es, bits, pairs);
    }

    private static void check(int n, int es, int bits, int pairs) {
        PositReference ref = new PositReference(n, es, RoundingMode.STOCHASTIC, bits);
        long[] every = PositChecks.allPatterns(n);
        long[][] ab = pairs == 0 ? everyPair(every) : PositRoundingModesTest.seededPairs(ref, pairs);
        long[] a = ab[0], b = ab[1];
        try (PositLibrary lib = PositLibrary.compileStochastic(n, es, bits)) {
            binary(lib, ref, bits, "add", a, b, ref::add);
            binary(lib, ref, bits, "sub", a, b, ref::sub);
            binary(lib, ref, bits, "mul", a, b, ref::mul);
            binary(lib, ref, bits, "div", a, b, ref::div);
            unary(lib, ref, bits, "sqrt", lib.lib.unary("sqrt", lib.storage(every)), every, ref::sqrt);
            double[] doubles = conversionProbes(ref, new Random(n * 31L + es));
            int[] fromDoubles = lib.lib.fromF64("from_f64", doubles);
            float[] floats = new float[doubles.length];
            for (int i = 0; i < floats.length; i++) floats[i] = (float) doubles[i];
            int[] fromFloats = lib.lib.fromF32("from_f32", floats);
            for (int i = 0; i < doubles.length; i++) {
                ref.useRandomBits(StochasticRounding.randomBits(i, bits));
                expect(lib, "from_f64(" + doubles[i] + ")", i, ref.fromDouble(doubles[i]), fromDoubles[i]);
                expect(lib, "from_f32(" + floats[i] + ")", i, ref.fromDouble(floats[i]), fromFloats[i]);
            }
            long[] ints = new Random(7).ints(4_000).map(v -> v >> (v & 31)).asLongStream().toArray();
            int[] fromInts = lib.lib.fromI32("from_i32", java.util.Arrays.stream(ints).mapToInt(v -> (int) v).toArray());
            unary(lib, ref, bits, "from_i32", fromInts, ints, v -> ref.fromInt((int) v));
            checkQuireRounding(lib, ref, bits, new Random(n * 7L + es));
        }
    }

    private static void binary(PositLibrary lib, PositReference ref, int bits, String op, long[] a, long[] b, LongBinaryOperator expected) {
        int[] actual = lib.lib.binary(op, lib.storage(a), lib.storage(b));
        for (int i = 0; i < a.length; i++) {
            ref.useRandomBits(StochasticRounding.randomBits(i, bits));
            expect(lib, op + "(0x" + Long.toHexString(a[i]) + ", 0x" + Long.toHexString(b[i]) + ")", i, expected.applyAsLong(a[i], b[i]), actual[i]);
        }
    }

    private static void unary(PositLibrary lib, PositReference ref, int bits, String op, int[] actual, long[] x, LongUnaryOperator expected) {
        for (int i = 0; i < x.length; i++) {
            ref.useRandomBits(StochasticRounding.randomBits(i, bits));
            expect(lib, op + "(0x" + Long.toHexString(x[i]) + ")", i, expected.applyAsLong(x[i]), actual[i]);
        }
    }

    /** Dot products of 7 seeded posits, each group's rounding with the group's counter. */
    private static void checkQuireRounding(PositLibrary lib, PositReference ref, int bits, Random random) {
        int length = 7, groups = 1_000;
        long[] a = new long[length * groups], b = new long[a.length];
        for (int i = 0; i < a.length; i++) { a[i] = PositQuireTest.finite(ref, random); b[i] = PositQuireTest.finite(ref, random); }
        int[] rounded = lib.lib.dot(lib.storage(a), lib.storage(b), length).rounded();
        for (int g = 0; g < groups; g++) {
            Exact dot = Exact.ZERO;
            for (int i = g * length; i < (g + 1) * length; i++) dot = dot.add(ref.value(a[i]).multiply(ref.value(b[i])));
            ref.useRandomBits(StochasticRounding.randomBits(g, bits));
            expect(lib, "acc_round of group " + g, g, ref.round(dot), rounded[g]);
        }
    }

    /** Every posit's value and the doubles beside it, and seeded doubles of every scale from minPos to maxPos. */
    private static double[] conversionProbes(PositReference ref, Random random) {
        long[] every = PositChecks.allPatterns(ref.n);
        int stride = ref.n <= 8 ? 1 : 16;
        double[] probes = new double[3 * ((every.length + stride - 1) / stride) + 4_000];
        int k = 0;
        for (int i = 0; i < every.length; i += stride) {
            double v = ref.isNar(every[i]) ? Double.NaN : ref.value(every[i]).toDouble();
            probes[k++] = v;
            probes[k++] = v * (1 + 0x1p-20);
            probes[k++] = v * (1 - 0x1p-30);
        }
        int maxScale = (ref.n - 2) << ref.es;
        while (k < probes.length) probes[k++] = (random.nextBoolean() ? -1 : 1) * Math.scalb(1 + random.nextDouble(), random.nextInt(2 * maxScale + 3) - maxScale - 1);
        return probes;
    }

    private static void expect(PositLibrary lib, String what, long counter, long expected, int actual) {
        if (lib.storage(expected) != actual) {
            fail(lib + " " + what + " with counter " + counter + " = 0x" + Long.toHexString(lib.pattern(actual)) + ", expected 0x" + Long.toHexString(expected));
        }
    }

    private static long[][] everyPair(long[] every) {
        int n = every.length;
        long[] a = new long[n * n], b = new long[n * n];
        for (int i = 0; i < n * n; i++) { a[i] = every[i / n]; b[i] = every[i % n]; }
        return new long[][]{a, b};
    }
}
