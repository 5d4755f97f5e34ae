package dev.byodt.compiler.dtype.floats;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.StochasticRounding;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.compiler.dtype.reference.Rational;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Random;
import java.util.function.IntBinaryOperator;
import java.util.function.IntUnaryOperator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * minifloat.c with --rounding stochastic, bit for bit against {@link MinifloatReference} given the same random
 * bits: the test harness passes element i the counter i, whose bits {@link StochasticRounding#randomBits} gives
 * the reference (so the library's hash of the counter is checked too). + - * / of the pairs, sqrt of every value,
 * from_f32 and from_f64 at every tie and beside every value, from_i32, the exact accumulator's rounding. The default
 * run takes edge cases and 2,048 seeded pairs of an IEEE-like and a saturating 8-bit format and of bfloat16 with 16
 * random bits, and every pair of FP4 with 3 (every random value comes up dozens of times); -Pexhaustive every pair of every 8-bit format and 300,000 pairs of the 16-bit ones, with 16 and 5 bits.
 */
@Execution(ExecutionMode.CONCURRENT)
class MinifloatStochasticRoundingTest {
    static final int DEFAULT_PAIRS = 2_048;

    static Stream<Arguments> sampled() {
        return Stream.of(
            Arguments.of(MinifloatLibraryTest.FP8E5M2, 16, DEFAULT_PAIRS),
            Arguments.of(MinifloatLibraryTest.FP8E4M3, 16, DEFAULT_PAIRS),
            Arguments.of(MinifloatLibraryTest.FP4E2M1, 3, 0),
            Arguments.of(MinifloatLibraryTest.BFLOAT16, 16, DEFAULT_PAIRS));
    }

    static Stream<Arguments> exhaustive() {
        return Stream.of(16, 5).flatMap(bits -> Stream.concat(
            MinifloatLibraryTest.eightBit().map(f -> Arguments.of(f, bits, 0)),
            Stream.of(MinifloatLibraryTest.FLOAT16, MinifloatLibraryTest.BFLOAT16)
                .map(f -> Arguments.of(f, bits, MinifloatRoundingModesTest.EXHAUSTIVE_PAIRS))));
    }

    /** {@code pairs} 0: every pair of the format; else edge cases and that many seeded pairs. */
    @ParameterizedTest
    @MethodSource("sampled")
    void roundsAsTheReferenceGivenTheSameRandomBits(MinifloatLibraryTest.Format f, int bits, int pairs) {
        check(f, bits, pairs);
    }

    @Tag("exhaustive")
    @ParameterizedTest
    @MethodSource("exhaustive")
    void everyFormatAndPairRoundsAsTheReference(MinifloatLibraryTest.Format f, int bits, int pairs) {
        check(f, bits, pairs);
    }

    private static void check(MinifloatLibraryTest.Format f, int bits, int pairs) {
        MinifloatReference ref = new MinifloatReference(f.e(), f.m(), f.specials(), f.unsigned(), RoundingMode.STOCHASTIC, bits);
        int[][] ab = pairs == 0 ? MinifloatRoundingModesTest.everyPair(ref)
            : MinifloatRoundingModesTest.seededPairs(f, ref, RoundingMode.STOCHASTIC, pairs);
        int[] a = ab[0], b = ab[1], every = MinifloatLibraryTest.everyValue(f);
        try (NativeLibrary lib = f.compile(RoundingMode.STOCHASTIC, bits)) {
            checkBinary("add", lib.binary("add", a, b), a, b, ref, bits, ref::add);
            checkBinary("sub", lib.binary("sub", a, b), a, b, ref, bits, ref::sub);
            checkBinary("mul", lib.binary("mul", a, b), a, b, ref, bits, ref::mul);
            checkBinary("div", lib.binary("div", a, b), a, b, ref, bits, ref::div);
            checkUnary("sqrt", lib.unary("sqrt", every), every, ref, bits, ref::sqrt);
            float[] probes = MinifloatLibraryTest.float32Probes(ref, f.bits() <= 8 ? 1 : 16, 4000);
            int[] fromFloats = lib.fromF32("from_f32", probes);
            double[] doubles = new double[probes.length];
            for (int i = 0; i < probes.length; i++) doubles[i] = probes[i] * (1 + 0x1p-30 * ((i % 3) - 1));
            int[] fromDoubles = lib.fromF64("from_f64", doubles);
            for (int i = 0; i < probes.length; i++) {
                ref.useRandomBits(StochasticRounding.randomBits(i, bits));
                expect("from_f32(" + probes[i] + ")", i, ref.fromDouble(probes[i]), fromFloats[i]);
                expect("from_f64(" + doubles[i] + ")", i, ref.fromDouble(doubles[i]), fromDoubles[i]);
            }
            Random random = new Random(9);
            int[] ints = new int[4000];
            for (int i = 0; i < ints.length; i++) ints[i] = random.nextInt() >> random.nextInt(32);
            checkUnary("from_i32", lib.fromI32("from_i32", ints), ints, ref, bits, ref::fromInt);
            checkAccumulatorRounding(lib, ref, bits, random);
        }
    }

    private static void checkBinary(String op, int[] actual, int[] a, int[] b, MinifloatReference ref, int bits, IntBinaryOperator expected) {
        for (int i = 0; i < a.length; i++) {
            ref.useRandomBits(StochasticRounding.randomBits(i, bits));
            expect(String.format("%s(0x%X, 0x%X)", op, a[i], b[i]), i, expected.applyAsInt(a[i], b[i]), actual[i]);
        }
    }

    private static void checkUnary(String op, int[] actual, int[] x, MinifloatReference ref, int bits, IntUnaryOperator expected) {
        for (int i = 0; i < x.length; i++) {
            ref.useRandomBits(StochasticRounding.randomBits(i, bits));
            expect(String.format("%s(0x%X)", op, x[i]), i, expected.applyAsInt(x[i]), actual[i]);
        }
    }

    /** Dot products of 7 seeded finite pairs, each group's rounding with the group's counter. */
    private static void checkAccumulatorRounding(NativeLibrary lib, MinifloatReference ref, int bits, Random random) {
        int length = 7, groups = 2000;
        int[] a = new int[groups * length], b = new int[a.length];
        for (int i = 0; i < a.length; i++) {
            do { a[i] = random.nextInt(ref.count()); } while (!ref.isFinite(a[i]));
            do { b[i] = random.nextInt(ref.count()); } while (!ref.isFinite(b[i]));
        }
        int[] rounded = lib.dot(a, b, length).rounded();
        for (int g = 0; g < groups; g++) {
            Rational dot = Rational.ZERO;
            for (int i = g * length; i < (g + 1) * length; i++) dot = dot.add(ref.value(a[i]).multiply(ref.value(b[i])));
            ref.useRandomBits(StochasticRounding.randomBits(g, bits));
            expect("acc_round of group " + g, g, ref.round(dot, false), rounded[g]);
        }
    }

    private static void expect(String what, long counter, int expected, int actual) {
        if (expected != actual) fail(String.format("%s with counter %d = 0x%X, expected 0x%X", what, counter, actual, expected));
    }
}
