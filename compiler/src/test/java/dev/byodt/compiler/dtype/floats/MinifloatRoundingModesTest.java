package dev.byodt.compiler.dtype.floats;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.compiler.dtype.reference.Rational;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * minifloat.c in every --rounding mode but the default (which {@link MinifloatLibraryTest} checks), bit for bit
 * against {@link MinifloatReference} in the same mode. The default run checks what rounds (+ - * / of edge cases
 * and 4,096 seeded pairs, sqrt of every value, the conversions from float32, float64 and int32, the exact
 * accumulator's rounding) for each mode once at 8 and once at 16 bits ({@link #sampleModes}). With -Pexhaustive
 * (the {@code exhaustive} tag) every operation, transcendentals included, in every format and mode: every pair
 * and every value of every 8-bit format; every 16-bit value, conversions at every tie and beside every value,
 * and 300,000 seeded pairs.
 */
@Execution(ExecutionMode.CONCURRENT)
class MinifloatRoundingModesTest {
    static final int DEFAULT_PAIRS = 4_096;
    static final int EXHAUSTIVE_PAIRS = 300_000;
    /** The modes whose rounding is a function of the value alone, in declaration order. */
    static final List<RoundingMode> DETERMINISTIC = Stream.of(RoundingMode.values()).filter(m -> m != RoundingMode.STOCHASTIC).toList();

    /**
     * The deterministic modes a format's datatype offers beside the default: all, but to odd without fraction bits
     * (E8M0); stochastic rounding has its own test ({@link MinifloatStochasticRoundingTest}).
     */
    static Stream<RoundingMode> otherModes(MinifloatLibraryTest.Format f) {
        return Stream.of(RoundingMode.values()).filter(mode -> mode != RoundingMode.NEAREST_EVEN && mode != RoundingMode.STOCHASTIC
            && !(mode == RoundingMode.ODD && f.m() == 0));
    }

    static Stream<Arguments> withModes(Stream<MinifloatLibraryTest.Format> formats) {
        return formats.flatMap(f -> otherModes(f).map(mode -> Arguments.of(f, mode)));
    }

    /**
     * Every mode once at 8 and once at 16 bits, the directed ones on an IEEE-like format (overflow to infinity or
     * to the largest value) and on a saturating one: the default run's sample of {@link #eightBitModes} and
     * {@link #sixteenBitModes}, each of which costs a library build.
     */
    static Stream<Arguments> sampleModes() {
        return Stream.of(
            Arguments.of(MinifloatLibraryTest.FP8E5M2, RoundingMode.UP),
            Arguments.of(MinifloatLibraryTest.FP8E5M2, RoundingMode.TOWARD_ZERO),
            Arguments.of(MinifloatLibraryTest.FP8E4M3, RoundingMode.DOWN),
            Arguments.of(MinifloatLibraryTest.FP8E4M3, RoundingMode.ODD),
            Arguments.of(MinifloatLibraryTest.FP4E2M1, RoundingMode.NEAREST_AWAY),
            Arguments.of(MinifloatLibraryTest.BFLOAT16, RoundingMode.UP),
            Arguments.of(MinifloatLibraryTest.BFLOAT16, RoundingMode.ODD),
            Arguments.of(MinifloatLibraryTest.BFLOAT16, RoundingMode.NEAREST_AWAY),
            Arguments.of(MinifloatLibraryTest.FLOAT16, RoundingMode.DOWN),
            Arguments.of(MinifloatLibraryTest.FLOAT16, RoundingMode.TOWARD_ZERO));
    }

    static Stream<Arguments> eightBitModes() { return withModes(MinifloatLibraryTest.eightBit()); }

    static Stream<Arguments> sixteenBitModes() {
        return withModes(Stream.of(MinifloatLibraryTest.FLOAT16, MinifloatLibraryTest.BFLOAT16));
    }

    /** The reference's rounding of a few values in each mode, worked out by hand for fp8e4m3 (S.EEEE.MMM, largest 448). */
    @Test
    void referenceRoundsAsTheModesAreDefined() {
        MinifloatReference.Specials fn = MinifloatReference.Specials.FN;
        // 1.0625 lies halfway between 1 (0x38) and 1.125 (0x39); 1.07 just above the midpoint; -1.0625 mirrors it.
        Rational tie = Rational.of(17).divide(Rational.of(16)), above = new Rational(BigInteger.valueOf(107), BigInteger.valueOf(100));
        int[][] expected = {
            // tie, above, -tie, 500 (beyond 448), -500
            {0x38, 0x39, 0xB8, 0x7E, 0xFE},  // nearest even
            {0x39, 0x39, 0xB9, 0x7E, 0xFE},  // nearest away
            {0x38, 0x38, 0xB8, 0x7E, 0xFE},  // toward zero
            {0x39, 0x39, 0xB8, 0x7E, 0xFE},  // up
            {0x38, 0x38, 0xB9, 0x7E, 0xFE},  // down
            {0x39, 0x39, 0xB9, 0x7E, 0xFE},  // odd
        };
        for (RoundingMode mode : DETERMINISTIC) {
            MinifloatReference e4m3 = new MinifloatReference(4, 3, fn, false, mode);
            int[] got = {e4m3.round(tie, false), e4m3.round(above, false), e4m3.round(tie.negate(), false),
                e4m3.round(Rational.of(500), false), e4m3.round(Rational.of(-500), false)};
            for (int i = 0; i < got.length; i++) assertEquals(expected[mode.ordinal()][i], got[i], mode + " case " + i);
        }
        // IEEE overflow: fp8e5m2 beyond 57344 (0x7B) is infinity (0x7C) only where the mode rounds away from zero.
        for (RoundingMode mode : DETERMINISTIC) {
            MinifloatReference e5m2 = new MinifloatReference(5, 2, MinifloatReference.Specials.IEEE, false, mode);
            int up = e5m2.round(Rational.of(70000), false), down = e5m2.round(Rational.of(-70000), false);
            assertEquals(mode == RoundingMode.NEAREST_EVEN || mode == RoundingMode.NEAREST_AWAY || mode == RoundingMode.UP ? 0x7C : 0x7B,
                up, mode + " +70000");
            assertEquals(mode == RoundingMode.NEAREST_EVEN || mode == RoundingMode.NEAREST_AWAY || mode == RoundingMode.DOWN ? 0xFC : 0xFB,
                down, mode + " -70000");
        }
    }

    /**
     * What rounds: + - * / of edge cases and seeded pairs, sqrt of every value, conversions at the ties and beside
     * every value (every 64th at 16 bits), the exact accumulator's rounding.
     */
    @ParameterizedTest
    @MethodSource("sampleModes")
    void roundingsOfSampledPairsAndEveryValue(MinifloatLibraryTest.Format f, RoundingMode mode) {
        MinifloatReference ref = f.reference(mode);
        int[] every = MinifloatLibraryTest.everyValue(f);
        try (NativeLibrary lib = f.compile(mode)) {
            int[][] pairs = seededPairs(f, ref, mode, DEFAULT_PAIRS);
            MinifloatLibraryTest.checkRoundedArithmetic(lib, ref, pairs[0], pairs[1]);
            MinifloatLibraryTest.checkUnary("sqrt", lib.unary("sqrt", every), every, ref::sqrt);
            MinifloatLibraryTest.checkConversions(lib, ref, every, MinifloatLibraryTest.float32Probes(ref, f.bits() <= 8 ? 1 : 64, 2000), 2000);
            MinifloatLibraryTest.checkExactAccumulation(lib, ref, new Random(77 + f.e()));
        }
    }

    /** Every operation of every pair and every value, conversions at every tie and beside every value, in every 8-bit format. */
    @Tag("exhaustive")
    @ParameterizedTest
    @MethodSource("eightBitModes")
    void everyPairAndValueOfEveryEightBitFormat(MinifloatLibraryTest.Format f, RoundingMode mode) {
        checkEveryOperation(f, mode, everyPair(f.reference(mode)));
    }

    /** Every operation of every value and of edge cases and 300,000 seeded pairs, conversions at every tie and beside every value. */
    @Tag("exhaustive")
    @ParameterizedTest
    @MethodSource("sixteenBitModes")
    void everyValueAndManyPairsOfSixteenBitFormats(MinifloatLibraryTest.Format f, RoundingMode mode) {
        checkEveryOperation(f, mode, seededPairs(f, f.reference(mode), mode, EXHAUSTIVE_PAIRS));
    }

    /** Every binary operation of the pairs, every unary one and conversion of every value, the exact accumulator. */
    private static void checkEveryOperation(MinifloatLibraryTest.Format f, RoundingMode mode, int[][] pairs) {
        MinifloatReference ref = f.reference(mode);
        int[] every = MinifloatLibraryTest.everyValue(f);
        try (NativeLibrary lib = f.compile(mode)) {
            MinifloatLibraryTest.checkBinary(lib, ref, pairs[0], pairs[1]);
            MinifloatLibraryTest.checkEveryValueOfUnaryOperations(lib, ref, every);
            MinifloatLibraryTest.checkConversions(lib, ref, every, MinifloatLibraryTest.float32Probes(ref, 1, 30_000), 100_000);
            MinifloatLibraryTest.checkExactAccumulation(lib, ref, new Random(77 + f.e()));
        }
    }

    static int[][] everyPair(MinifloatReference ref) {
        int n = ref.count();
        int[] a = new int[n * n], b = new int[n * n];
        for (int i = 0; i < n * n; i++) { a[i] = i / n; b[i] = i % n; }
        return new int[][]{a, b};
    }

    /** Every pair of edge values, then seeded random pairs, half of them from neighbouring binades (close sums and cancellations). */
    static int[][] seededPairs(MinifloatLibraryTest.Format f, MinifloatReference ref, RoundingMode mode, int pairs) {
        List<Integer> edges = MinifloatLibraryTest.edgeValues(f, ref);
        int edgePairs = edges.size() * edges.size();
        int[] a = new int[edgePairs + pairs], b = new int[a.length];
        for (int i = 0; i < edgePairs; i++) { a[i] = edges.get(i / edges.size()); b[i] = edges.get(i % edges.size()); }
        Random random = new Random(1907L * f.e() + mode.ordinal());
        for (int i = edgePairs; i < a.length; i++) {
            a[i] = random.nextInt(ref.count());
            int nearby = (a[i] + ((random.nextInt(3) - 1) << f.m()) + random.nextInt(1 << f.m())) & (ref.count() - 1);
            b[i] = i % 2 == 0 ? random.nextInt(ref.count()) : nearby;
        }
        return new int[][]{a, b};
    }
}
