package dev.byodt.compiler.dtype.fixed;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.StochasticRounding;
import dev.byodt.compiler.dtype.builtin.FixedPointDatatypes;
import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.harness.StandardFunctions;
import dev.byodt.compiler.dtype.reference.FixedReference;
import dev.byodt.compiler.dtype.reference.Rational;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.IntBinaryOperator;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * fixed.c in the --rounding modes beside nearest and truncate (nearest-away, toward-zero, up, down, odd and
 * stochastic), bit for bit against {@link FixedReference} in the same mode, which rounds the exact rational
 * value, a two's-complement number, by the mode's definition (stochastic rounding: its floor, plus one when the
 * fraction's first k bits and the k random bits of the element's counter, {@link StochasticRounding#randomBits},
 * carry). + - * /, division by integers, sqrt, the conversions from double, float and int, and the exact
 * accumulator's rounding. Default run: each mode once, on 2,048 seeded pairs and every pair of edge values of an
 * fxp8, fxp16 or fxp32 and every value for sqrt; -Pexhaustive every mode on every pair of fxp8 with P = 0, 3, 7 and
 * on 300,000 pairs of fxp16 with P = 0, 8, 13, 15, saturating and wrapping.
 */
@Execution(ExecutionMode.CONCURRENT)
class FixedRoundingModesTest {
    /** One library build: fxpN_P, wrapping or saturating, in a mode, with k random bits where stochastic. */
    record Case(int n, int p, boolean wrap, RoundingMode mode, int srBits) {
        String prefix() { return "fxp" + n + "_" + p; }

        FixedReference reference() { return new FixedReference(n, p, wrap, mode, srBits); }

        NativeLibrary compile() {
            Map<String, FunctionShape> functions = new LinkedHashMap<>(StandardFunctions.all());
            functions.put("div_i32", FunctionShape.VALUE_AND_INT32);
            NativeLibrary.Builder b = NativeLibrary.builder(FixedPointDatatypes.LIBRARY, prefix(), n).operations(functions)
                .define("FXP_N", "" + n).define("FXP_P", "" + p).define("FXP_WRAP", wrap ? "1" : "0").define("FXP_TRUNCATE", "0")
                .define("BYODT_ROUNDING", "BYODT_ROUNDING_" + mode.name()).define("BYODT_SR_BITS", "" + srBits)
                .accumulatorBits(n <= 16 ? 64 : 128);
            return b.build();
        }

        @Override public String toString() { return prefix() + (wrap ? " wrap " : " ") + mode.optionName() + (mode == RoundingMode.STOCHASTIC ? " " + srBits + " bits" : ""); }
    }

    static final int DEFAULT_PAIRS = 2_048;
    static final RoundingMode[] MODES = {RoundingMode.NEAREST_AWAY, RoundingMode.TOWARD_ZERO, RoundingMode.UP, RoundingMode.DOWN,
        RoundingMode.ODD, RoundingMode.STOCHASTIC};

    static Stream<Arguments> sampled() {
        return Stream.of(
            Arguments.of(new Case(8, 3, false, RoundingMode.UP, 16), DEFAULT_PAIRS),
            Arguments.of(new Case(8, 5, true, RoundingMode.STOCHASTIC, 4), DEFAULT_PAIRS),
            Arguments.of(new Case(16, 13, false, RoundingMode.TOWARD_ZERO, 16), DEFAULT_PAIRS),
            Arguments.of(new Case(16, 10, false, RoundingMode.NEAREST_AWAY, 16), DEFAULT_PAIRS),
            Arguments.of(new Case(16, 15, true, RoundingMode.ODD, 16), DEFAULT_PAIRS),
            Arguments.of(new Case(16, 8, false, RoundingMode.DOWN, 16), DEFAULT_PAIRS),
            Arguments.of(new Case(32, 16, false, RoundingMode.STOCHASTIC, 16), DEFAULT_PAIRS));
    }

    static Stream<Arguments> exhaustive() {
        return Stream.of(MODES).flatMap(mode -> Stream.of(false, true).flatMap(wrap -> Stream.concat(
            IntStream.of(0, 3, 7).mapToObj(p -> Arguments.of(new Case(8, p, wrap, mode, mode == RoundingMode.STOCHASTIC ? 5 : 16), 0)),
            IntStream.of(0, 8, 13, 15).mapToObj(p -> Arguments.of(new Case(16, p, wrap, mode, 16), 300_000)))));
    }

    /** The reference's modes on values worked out by hand for fxp8_2 (quarters): 1.375, -1.375, 1.125, -1.125. */
    @Test
    void referenceRoundsAsTheModesAreDefined() {
        double[] inputs = {1.375, -1.375, 1.125, -1.125};
        Map<RoundingMode, int[]> expectedQuarters = Map.of(
            RoundingMode.NEAREST_AWAY, new int[]{6, -6, 5, -5},  // ties away from zero
            RoundingMode.TOWARD_ZERO, new int[]{5, -5, 4, -4},
            RoundingMode.UP, new int[]{6, -5, 5, -4},
            RoundingMode.DOWN, new int[]{5, -6, 4, -5},
            RoundingMode.ODD, new int[]{5, -5, 5, -5});
        expectedQuarters.forEach((mode, quarters) -> {
            FixedReference ref = new FixedReference(8, 2, false, mode, 0);
            for (int i = 0; i < inputs.length; i++) assertEquals(quarters[i] & 0xFF, ref.fromDouble(inputs[i]), mode + " " + inputs[i]);
        });
        // Stochastic with 3 bits: 1.375 is 5.5 quarters, cut fraction 100 (4 of 8): up from random bits 4 on; -1.375 is
        // -5.5 = -6 + 0.5, the same fraction above its floor -6.
        FixedReference sr = new FixedReference(8, 2, false, RoundingMode.STOCHASTIC, 3);
        for (int random = 0; random < 8; random++) {
            sr.useRandomBits(random);
            assertEquals((random >= 4 ? 6 : 5), sr.fromDouble(1.375), "1.375 with random bits " + random);
            assertEquals((random >= 4 ? -5 : -6) & 0xFF, sr.fromDouble(-1.375), "-1.375 with random bits " + random);
        }
    }

    /** {@code pairs} 0: every pair of an 8-bit format; else that many seeded pairs and every pair of edge values. */
    @ParameterizedTest
    @MethodSource("sampled")
    void roundsAsTheReference(Case c, int pairs) {
        check(c, pairs);
    }

    @Tag("exhaustive")
    @ParameterizedTest
    @MethodSource("exhaustive")
    void everyModeRoundsAsTheReference(Case c, int pairs) {
        check(c, pairs);
    }

    private static void check(Case c, int pairs) {
        FixedReference ref = c.reference();
        FixedLibraryTest.Format format = new FixedLibraryTest.Format(c.n(), c.p(), c.wrap(), false);
        int[][] ab = pairs == 0 ? everyPair() : FixedLibraryTest.randomPairs(format, pairs);
        int[] a = ab[0], b = ab[1];
        int[] values = c.n() == 32 ? a : IntStream.range(0, 1 << c.n()).toArray();
        try (NativeLibrary lib = c.compile()) {
            binary("add", lib.binary("add", a, b), a, b, ref, c, ref::add);
            binary("sub", lib.binary("sub", a, b), a, b, ref, c, ref::sub);
            binary("mul", lib.binary("mul", a, b), a, b, ref, c, ref::mul);
            binary("div", lib.binary("div", a, b), a, b, ref, c, ref::div);
            int[] counts = IntStream.range(0, values.length).map(i -> 1 + i % 37).toArray();
            binary("div_i32", lib.withInt32("div_i32", values, counts), values, counts, ref, c, ref::divByInteger);
            unary("sqrt", lib.unary("sqrt", values), values, ref, c, ref::sqrt);
            unary("from_i32", lib.fromI32("from_i32", values), values, ref, c, ref::fromInt);
            Random random = new Random(c.n() * 100L + c.p());
            double[] doubles = new double[8_000];
            for (int i = 0; i < doubles.length; i++) doubles[i] = Math.scalb(random.nextGaussian(), c.n() - c.p() - 1 - random.nextInt(c.n()));
            int[] fromDoubles = lib.fromF64("from_f64", doubles);
            float[] floats = new float[doubles.length];
            for (int i = 0; i < floats.length; i++) floats[i] = (float) doubles[i];
            int[] fromFloats = lib.fromF32("from_f32", floats);
            for (int i = 0; i < doubles.length; i++) {
                ref.useRandomBits(StochasticRounding.randomBits(i, c.srBits()));
                expect(c, "from_f64(" + doubles[i] + ")", i, ref.fromDouble(doubles[i]), fromDoubles[i]);
                expect(c, "from_f32(" + floats[i] + ")", i, ref.fromDouble(floats[i]), fromFloats[i]);
            }
            checkAccumulatorRounding(lib, ref, c, a, b);
        }
    }

    private static void binary(String op, int[] actual, int[] a, int[] b, FixedReference ref, Case c, IntBinaryOperator expected) {
        for (int i = 0; i < a.length; i++) {
            ref.useRandomBits(StochasticRounding.randomBits(i, c.srBits()));
            expect(c, String.format("%s(0x%X, 0x%X)", op, a[i], b[i]), i, expected.applyAsInt(a[i], b[i]), actual[i]);
        }
    }

    private static void unary(String op, int[] actual, int[] x, FixedReference ref, Case c, IntUnaryOperator expected) {
        for (int i = 0; i < x.length; i++) {
            ref.useRandomBits(StochasticRounding.randomBits(i, c.srBits()));
            expect(c, String.format("%s(0x%X)", op, x[i]), i, expected.applyAsInt(x[i]), actual[i]);
        }
    }

    /** Dot products of the pairs in groups of 5, each group's rounding with the group's counter. */
    private static void checkAccumulatorRounding(NativeLibrary lib, FixedReference ref, Case c, int[] a, int[] b) {
        int length = 5, groups = Math.min(a.length, 20_000) / length;
        int[] rounded = lib.dot(java.util.Arrays.copyOf(a, groups * length), java.util.Arrays.copyOf(b, groups * length), length).rounded();
        for (int g = 0; g < groups; g++) {
            BigInteger sum = BigInteger.ZERO;
            for (int i = g * length; i < (g + 1) * length; i++) sum = sum.add(BigInteger.valueOf(ref.signed(a[i]) * ref.signed(b[i])));
            ref.useRandomBits(StochasticRounding.randomBits(g, c.srBits()));
            expect(c, "acc_round of group " + g + " (" + Rational.scaled(sum, -2 * c.p()).toBigDecimal(10) + ")", g, ref.roundAccumulated(sum), rounded[g]);
        }
    }

    private static void expect(Case c, String what, long counter, int expected, int actual) {
        if (expected != actual) fail(String.format("%s %s with counter %d = 0x%X, expected 0x%X", c, what, counter, actual, expected));
    }

    private static int[][] everyPair() {
        int[] a = new int[1 << 16], b = new int[1 << 16];
        for (int i = 0; i < a.length; i++) { a[i] = i >> 8; b[i] = i & 0xFF; }
        return new int[][]{a, b};
    }
}
