package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.RoundingMode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * posit.c in every --rounding mode but the standard's (which the other posit tests check), bit for bit against
 * {@link PositReference} in the same mode. The default run checks what rounds (+ - * /, sqrt, the conversions from
 * float32, float64 and int32, the quire's rounding) for each mode once at 8 and once at 16 bits
 * ({@link #sampleModes}): every pair of the 8-bit posits, every value for sqrt, conversions from float32 at every
 * posit, tie and their neighbours (the first and last 16 posits' and every 16th of posit16's), and for posit16 edge
 * cases and 4,096 seeded pairs. With -Pexhaustive (the
 * {@code exhaustive} tag) every operation, elementary functions included, in every mode: every pair and every value
 * of posits of 4, 6 and 8 bits with every es, and of posit16 with every es every value and 100,000 seeded pairs.
 */
@Execution(ExecutionMode.CONCURRENT)
class PositRoundingModesTest {
    static final int DEFAULT_PAIRS = 4_096;
    static final int EXHAUSTIVE_PAIRS = 100_000;

    /** The deterministic modes beside the standard's; stochastic rounding has its own test ({@link PositStochasticRoundingTest}). */
    static Stream<RoundingMode> otherModes() {
        return Stream.of(RoundingMode.values()).filter(m -> m != RoundingMode.NEAREST_EVEN && m != RoundingMode.STOCHASTIC);
    }

    /** Every mode once at 8 and once at 16 bits, at two exponent sizes each: the default run's sample. */
    static Stream<Arguments> sampleModes() {
        return Stream.of(
            Arguments.of(8, 2, RoundingMode.UP), Arguments.of(8, 2, RoundingMode.ODD), Arguments.of(8, 2, RoundingMode.NEAREST_AWAY),
            Arguments.of(8, 0, RoundingMode.DOWN), Arguments.of(8, 0, RoundingMode.TOWARD_ZERO),
            Arguments.of(16, 2, RoundingMode.DOWN), Arguments.of(16, 2, RoundingMode.TOWARD_ZERO),
            Arguments.of(16, 1, RoundingMode.UP), Arguments.of(16, 1, RoundingMode.ODD), Arguments.of(16, 1, RoundingMode.NEAREST_AWAY));
    }

    static Stream<Arguments> smallPositModes() {
        return IntStream.of(4, 6, 8).boxed().flatMap(n -> IntStream.rangeClosed(0, 3).boxed()
            .flatMap(es -> otherModes().map(mode -> Arguments.of(n, es, mode))));
    }

    static Stream<Arguments> posit16Modes() {
        return IntStream.rangeClosed(0, 3).boxed().flatMap(es -> otherModes().map(mode -> Arguments.of(16, es, mode)));
    }

    /**
     * The reference's choices in posit8 (es 2) worked out by hand: 1 is 0x40 and the next posit up 1.125 (0x41), so
     * 1.0625 is their midpoint and 1.07 lies above it; below minPos (2^-24, 0x01) and beyond maxPos (2^24, 0x7f)
     * every mode keeps the standard's minPos and maxPos.
     */
    @Test
    void referenceRoundsAsTheModesAreDefined() {
        Exact tie = new Exact(BigInteger.valueOf(17), BigInteger.valueOf(16)), above = new Exact(BigInteger.valueOf(107), BigInteger.valueOf(100));
        Exact tiny = new Exact(BigInteger.ONE, BigInteger.ONE.shiftLeft(30)), huge = Exact.of(1L << 40);
        long[][] expected = {
            // tie, above, -tie, tiny, -tiny, huge
            {0x40, 0x41, 0xc0, 0x01, 0xff, 0x7f},  // nearest even
            {0x41, 0x41, 0xbf, 0x01, 0xff, 0x7f},  // nearest away
            {0x40, 0x40, 0xc0, 0x01, 0xff, 0x7f},  // toward zero
            {0x41, 0x41, 0xc0, 0x01, 0xff, 0x7f},  // up
            {0x40, 0x40, 0xbf, 0x01, 0xff, 0x7f},  // down
            {0x41, 0x41, 0xbf, 0x01, 0xff, 0x7f},  // odd
        };
        for (RoundingMode mode : Stream.of(RoundingMode.values()).filter(m -> m != RoundingMode.STOCHASTIC).toList()) {
            PositReference posit8 = new PositReference(8, 2, mode);
            long[] got = {posit8.round(tie), posit8.round(above), posit8.round(tie.negate()), posit8.round(tiny),
                posit8.round(tiny.negate()), posit8.round(huge)};
            for (int i = 0; i < got.length; i++) assertEquals(expected[mode.ordinal()][i], got[i], mode + " case " + i);
        }
    }

    @ParameterizedTest
    @MethodSource("sampleModes")
    void roundingsOfSampledPairsAndEveryValue(int n, int es, RoundingMode mode) {
        PositReference ref = new PositReference(n, es, mode);
        long[][] pairs = n <= 8 ? SmallPositsTest.everyPair(ref) : seededPairs(ref, DEFAULT_PAIRS);
        long[] all = PositChecks.allPatterns(n);
        try (PositLibrary lib = PositLibrary.compile(n, es, mode)) {
            roundedArithmetic(lib, ref, pairs[0], pairs[1], all);
            PositConversionChecks.fromFloat(lib, ref, PositConversionChecks.tiesAndNeighbours(ref, n <= 8 ? 1 : 16));
            PositConversionChecks.fromInt(lib, ref, PositConversionChecks.interestingInts(new Random(n * 31L + es), 2000));
            PositQuireTest.checkRandomDotProducts(lib, ref, new Random(n * 17L + es + mode.ordinal()));
        }
    }

    @Tag("exhaustive")
    @ParameterizedTest
    @MethodSource("smallPositModes")
    void everyPairAndValueOfSmallPosits(int n, int es, RoundingMode mode) {
        PositReference ref = new PositReference(n, es, mode);
        long[][] pairs = SmallPositsTest.everyPair(ref);
        try (PositLibrary lib = PositLibrary.compile(n, es, mode)) {
            everyOperation(lib, ref, pairs[0], pairs[1]);
        }
    }

    @Tag("exhaustive")
    @ParameterizedTest
    @MethodSource("posit16Modes")
    void everyValueAndManyPairsOfPosit16(int n, int es, RoundingMode mode) {
        PositReference ref = new PositReference(n, es, mode);
        long[][] pairs = seededPairs(ref, EXHAUSTIVE_PAIRS);
        try (PositLibrary lib = PositLibrary.compile(n, es, mode)) {
            everyOperation(lib, ref, pairs[0], pairs[1]);
        }
    }

    private static void roundedArithmetic(PositLibrary lib, PositReference ref, long[] a, long[] b, long[] all) {
        PositChecks.binary(lib, ref, "add", a, b, ref::add);
        PositChecks.binary(lib, ref, "sub", a, b, ref::sub);
        PositChecks.binary(lib, ref, "mul", a, b, ref::mul);
        PositChecks.binary(lib, ref, "div", a, b, ref::div);
        PositChecks.unary(lib, ref, "sqrt", all, ref::sqrt);
    }

    /** What {@link SmallPositsTest#checkAll} checks of the library a model gets, in this library's mode. */
    private static void everyOperation(PositLibrary lib, PositReference ref, long[] a, long[] b) {
        long[] all = PositChecks.allPatterns(lib.n);
        roundedArithmetic(lib, ref, a, b, all);
        PositChecks.mathBinary(lib, ref, "pow", a, b, new PositMathReference(ref)::pow);
        PositChecks.functionsAndConversions(lib, ref, all);
        PositQuireTest.checkRandomDotProducts(lib, ref, new Random(lib.n * 17L + lib.es));
    }

    /** Every pair of the special values and their neighbours, then seeded random pairs. */
    static long[][] seededPairs(PositReference ref, int count) {
        long one = 1L << (ref.n - 2);
        long[] edges = {0, ref.nar(), one, ref.negate(one), one + 1, 1, 2, ref.negate(1), ref.maxPos(), ref.maxPos() - 1, ref.negate(ref.maxPos())};
        long[] a = new long[edges.length * edges.length + count], b = new long[a.length];
        for (int i = 0; i < edges.length * edges.length; i++) { a[i] = edges[i / edges.length]; b[i] = edges[i % edges.length]; }
        Random random = new Random(ref.n * 131L + ref.es);
        for (int i = edges.length * edges.length; i < a.length; i++) { a[i] = random.nextLong(ref.mask() + 1); b[i] = random.nextLong(ref.mask() + 1); }
        return new long[][]{a, b};
    }
}
