package dev.byodt.compiler.dtype.fixed;

import dev.byodt.compiler.dtype.builtin.FixedPointDatatypes;
import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.harness.StandardFunctions;
import dev.byodt.compiler.dtype.reference.Erf;
import dev.byodt.compiler.dtype.reference.FixedReference;
import dev.byodt.compiler.dtype.reference.Rounding;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleUnaryOperator;
import java.util.function.IntBinaryOperator;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * fixed.c against {@link FixedReference}: every pair of operands for fxp8_P at every P (and the wrap and
 * truncate modes at several P), every value for unary operations and conversions, 300,000 seeded pairs
 * plus edge cases for fxp16_P (P = 0, 8, 13, 15; {@link Fxp16_13AllPairsTest}, -Pexhaustive, checks every pair of
 * fxp16_13), 10^5 pairs for fxp32_P, and exact accumulation; div_i32, every fxp8 value by each of 312 integers
 * (counts 1 to 300 and edge cases), and the seeded values of the wider formats by one of them each.
 */
@Execution(ExecutionMode.CONCURRENT)
class FixedLibraryTest {
    static final double BOUNDARY_TOLERANCE = 0x1p-40;

    record Format(int n, int p, boolean wrap, boolean truncate) {
        String prefix() { return "fxp" + n + "_" + p; }

        FixedReference reference() { return new FixedReference(n, p, wrap, truncate); }

        NativeLibrary compile() {
            Map<String, FunctionShape> functions = new LinkedHashMap<>(StandardFunctions.all());
            functions.put("div_i32", FunctionShape.VALUE_AND_INT32);
            return NativeLibrary.builder(FixedPointDatatypes.LIBRARY, prefix(), n).operations(functions)
                .define("FXP_N", "" + n).define("FXP_P", "" + p)
                .define("FXP_WRAP", wrap ? "1" : "0").define("FXP_TRUNCATE", truncate ? "1" : "0")
                .accumulatorBits(n <= 16 ? 64 : 128).build();
        }

        @Override public String toString() { return prefix() + (wrap ? " wrap" : "") + (truncate ? " truncate" : ""); }
    }

    static Stream<Format> eightBit() {
        Stream<Format> every = IntStream.range(0, 8).mapToObj(p -> new Format(8, p, false, false));
        Stream<Format> modes = IntStream.of(0, 3, 7).boxed().flatMap(p -> Stream.of(
            new Format(8, p, true, false), new Format(8, p, false, true), new Format(8, p, true, true)));
        return Stream.concat(every, modes);
    }

    static Stream<Format> sixteenBit() {
        return Stream.of(new Format(16, 0, false, false), new Format(16, 8, false, false), new Format(16, 13, false, false),
            new Format(16, 15, false, false), new Format(16, 13, true, false), new Format(16, 13, false, true),
            new Format(16, 13, true, true));
    }

    static Stream<Format> thirtyTwoBit() {
        return Stream.of(new Format(32, 0, false, false), new Format(32, 16, false, false), new Format(32, 31, false, false),
            new Format(32, 16, true, true));
    }

    @ParameterizedTest
    @MethodSource("eightBit")
    void everyPairAndEveryValueOfFxp8(Format f) {
        int[] a = new int[1 << 16], b = new int[1 << 16];
        for (int i = 0; i < a.length; i++) { a[i] = i >> 8; b[i] = i & 0xFF; }
        checkAll(f, a, b);
    }

    @ParameterizedTest
    @MethodSource("sixteenBit")
    void randomPairsAndEveryValueOfFxp16(Format f) {
        int[][] pairs = randomPairs(f, 300_000);
        checkAll(f, pairs[0], pairs[1]);
    }

    @ParameterizedTest
    @MethodSource("thirtyTwoBit")
    void randomPairsOfFxp32(Format f) {
        int[][] pairs = randomPairs(f, 100_000);
        try (NativeLibrary lib = f.compile()) {
            checkBinary(lib, f.reference(), pairs[0], pairs[1]);
            checkDivisionByIntegers(lib, f.reference(), pairs[0], false);
            checkUnaryOps(lib, f, pairs[0]);
            checkAccumulation(lib, f, pairs[0], pairs[1]);
        }
    }

    /** Seeded random pairs followed by every pair of edge values (0, +-1 ulp, +-1, extremes, saturation boundaries). */
    static int[][] randomPairs(Format f, int count) {
        FixedReference ref = f.reference();
        List<Integer> edges = new ArrayList<>();
        long one = 1L << f.p;
        for (long v : new long[]{0, 1, -1, 2, -2, one, -one, one + 1, -one - 1, one / 2, -one / 2, 3 * one / 2,
            (1L << (f.n - 1)) - 1, -(1L << (f.n - 1)), (1L << (f.n - 1)) - 2, -(1L << (f.n - 1)) + 1,
            1L << ((f.n - 1 + f.p) / 2), -(1L << ((f.n - 1 + f.p) / 2))}) {
            edges.add((int) v & ref.mask());
        }
        Random random = new Random(1_000_003L * f.n + f.p);
        int total = count + edges.size() * edges.size();
        int[] a = new int[total], b = new int[total];
        for (int i = 0; i < count; i++) {
            // Half uniform patterns, half small magnitudes (where products and quotients do not saturate).
            int shift = i % 2 == 0 ? 0 : random.nextInt(f.n);
            a[i] = (random.nextInt() >> shift) & ref.mask();
            b[i] = (random.nextInt() >> (i % 2 == 0 ? 0 : random.nextInt(f.n))) & ref.mask();
            if (f.n < 32) { a[i] = (int) ref.signed(a[i]) & ref.mask(); b[i] = (int) ref.signed(b[i]) & ref.mask(); }
        }
        for (int i = 0; i < edges.size() * edges.size(); i++) {
            a[count + i] = edges.get(i / edges.size());
            b[count + i] = edges.get(i % edges.size());
        }
        return new int[][]{a, b};
    }

    private void checkAll(Format f, int[] a, int[] b) {
        FixedReference ref = f.reference();
        int[] every = new int[1 << f.n];
        for (int i = 0; i < every.length; i++) every[i] = i;
        try (NativeLibrary lib = f.compile()) {
            checkBinary(lib, ref, a, b);
            checkDivisionByIntegers(lib, ref, f.n == 8 ? every : a, f.n == 8);
            checkDivisionByPowersOfTwo(lib, ref, every, f.n);
            checkUnaryOps(lib, f, every);
            checkConversions(lib, f, ref, every);
            checkAccumulation(lib, f, a, b);
        }
    }

    private void checkBinary(NativeLibrary lib, FixedReference ref, int[] a, int[] b) {
        check("add", lib.binary("add", a, b), a, b, ref::add);
        check("sub", lib.binary("sub", a, b), a, b, ref::sub);
        check("mul", lib.binary("mul", a, b), a, b, ref::mul);
        check("div", lib.binary("div", a, b), a, b, ref::div);
        check("min", lib.binary("min", a, b), a, b, ref::min);
        check("max", lib.binary("max", a, b), a, b, ref::max);
        check("lt", lib.compare("lt", a, b), a, b, (x, y) -> ref.signed(x) < ref.signed(y) ? 1 : 0);
        check("le", lib.compare("le", a, b), a, b, (x, y) -> ref.signed(x) <= ref.signed(y) ? 1 : 0);
        check("gt", lib.compare("gt", a, b), a, b, (x, y) -> ref.signed(x) > ref.signed(y) ? 1 : 0);
        check("ge", lib.compare("ge", a, b), a, b, (x, y) -> ref.signed(x) >= ref.signed(y) ? 1 : 0);
        check("eq", lib.compare("eq", a, b), a, b, (x, y) -> x == y ? 1 : 0);
        check("ne", lib.compare("ne", a, b), a, b, (x, y) -> x != y ? 1 : 0);
        int[] pow = lib.binary("pow", a, b);
        int tolerated = 0;
        for (int i = 0; i < a.length; i++) {
            double x = ref.signed(a[i]) / Math.pow(2, ref_p(ref, a[i])), y = ref.signed(b[i]) / Math.pow(2, ref_p(ref, b[i]));
            tolerated += nearlyCorrect(ref, "pow", a[i], pow[i], Math.pow(x, y));
        }
        System.out.printf("%s pow: %d pairs, %d near a rounding boundary%n", lib.prefix(), a.length, tolerated);
    }

    /** P recovered from the reference (value = signed / 2^P): value(1) = 2^-P. */
    private static int ref_p(FixedReference ref, int unused) {
        return -ref.value(1).floorLog2();
    }

    /**
     * div_i32, a mean's sum divided by its count, by the counts 1 to 300 (fxp16_13 holds none from 4 on), by 0,
     * by negative integers and by the extremes of int32_t, whose quotients round to 0 or saturate: every value
     * of 8 bits by each of them, the seeded values of wider formats by one each in turn.
     */
    private void checkDivisionByIntegers(NativeLibrary lib, FixedReference ref, int[] values, boolean everyPair) {
        List<Integer> divisors = new ArrayList<>(List.of(0, -1, -2, -3, -7, -300, Integer.MAX_VALUE, Integer.MIN_VALUE,
            Integer.MAX_VALUE - 1, 1 << 20, 65_536, 65_537));
        for (int n = 1; n <= 300; n++) divisors.add(n);
        int count = everyPair ? values.length * divisors.size() : values.length;
        int[] a = new int[count], b = new int[count];
        for (int i = 0; i < count; i++) {
            a[i] = values[everyPair ? i / divisors.size() : i];
            b[i] = divisors.get(i % divisors.size());
        }
        check("div_i32", lib.withInt32("div_i32", a, b), a, b, ref::divByInteger);
    }

    /**
     * div_i32 of every value by each power of two up to 2^30, and div by each value whose stored integer is one
     * (2^-P up to the largest): the divisors both take in shifts; and by 9 and its stored 9 beside them.
     */
    private void checkDivisionByPowersOfTwo(NativeLibrary lib, FixedReference ref, int[] every, int n) {
        for (int divisor : IntStream.concat(IntStream.rangeClosed(0, 30).map(k -> 1 << k), IntStream.of(9)).toArray()) {
            int[] b = new int[every.length];
            Arrays.fill(b, divisor);
            check("div_i32", lib.withInt32("div_i32", every, b), every, b, ref::divByInteger);
            if (divisor < 1 << (n - 1)) check("div", lib.binary("div", every, b), every, b, ref::div);
        }
    }

    private void checkUnaryOps(NativeLibrary lib, Format f, int[] x) {
        FixedReference ref = f.reference();
        checkUnary("neg", lib.unary("neg", x), x, ref::neg);
        checkUnary("abs", lib.unary("abs", x), x, ref::abs);
        checkUnary("sqrt", lib.unary("sqrt", x), x, ref::sqrt);
        int p = ref_p(ref, 0);
        DoubleUnaryOperator sigmoid = v -> 1 / (1 + Math.exp(-v));
        String[] names = {"exp", "log", "tanh", "sigmoid", "sin", "cos"};
        DoubleUnaryOperator[] fns = {Math::exp, Math::log, Math::tanh, sigmoid, StrictMath::sin, StrictMath::cos};
        for (int k = 0; k < names.length; k++) {
            int[] actual = lib.unary(names[k], x);
            int tolerated = 0;
            for (int i = 0; i < x.length; i++) {
                tolerated += nearlyCorrect(ref, names[k], x[i], actual[i], fns[k].applyAsDouble(ref.signed(x[i]) / Math.pow(2, p)));
            }
            System.out.printf("%s %s: %d values, %d near a rounding boundary%n", lib.prefix(), names[k], x.length, tolerated);
        }
        int[] erf = lib.unary("erf", x);
        double[] exactErf = x.length == 1 << f.n ? ERF_OF_EVERY_VALUE.computeIfAbsent(f.n + "_" + f.p, key -> erf(ref, p, x)) : erf(ref, p, x);
        for (int i = 0; i < x.length; i++) nearlyCorrect(ref, "erf", x[i], erf[i], exactErf[i]);
        // The integer, in units of 2^-P, saturated or wrapped like every exact result out of range.
        checkUnary("floor", lib.unary("floor", x), x, a -> ref.fit(Rounding.floor(ref.value(a)).shiftLeft(p)));
        checkUnary("ceil", lib.unary("ceil", x), x, a -> ref.fit(Rounding.ceil(ref.value(a)).shiftLeft(p)));
        checkUnary("round", lib.unary("round", x), x, a -> ref.fit(Rounding.nearestEven(ref.value(a)).shiftLeft(p)));
    }

    /**
     * The reference's erf of every value of fxpN_P, by "N_P": its series is this class's slowest reference (a sixth
     * of its time, most of it on fxp16_13's values), and the wrap and truncate variants have the same values.
     */
    private static final Map<String, double[]> ERF_OF_EVERY_VALUE = new ConcurrentHashMap<>();

    private static double[] erf(FixedReference ref, int p, int[] x) {
        return Arrays.stream(x).mapToDouble(a -> Erf.erf(ref.signed(a) / Math.pow(2, p))).toArray();
    }

    private void checkConversions(NativeLibrary lib, Format f, FixedReference ref, int[] every) {
        float[] floats = lib.toF32("to_f32", every);
        for (int i = 0; i < every.length; i++) {
            assertEquals(Float.floatToIntBits(ref.toFloat(every[i])), Float.floatToIntBits(floats[i]), "to_f32 " + every[i]);
        }
        checkUnary("to_i32", lib.toI32("to_i32", every), every, ref::toInt);
        assertEquals(ref.lowest(), lib.constant("lowest"));
        // Every tie k + 1/2 (in units of 2^-P) across the range and beyond it, its float32 neighbours, and random floats.
        List<Float> probes = new ArrayList<>(List.of(Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f,
            Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, -Float.MIN_VALUE));
        long limit = (1L << (f.n - 1)) + 4;
        for (long k = -limit; k <= limit; k++) {
            float tie = (float) ((k + 0.5) / Math.pow(2, f.p));
            probes.add(tie);
            probes.add(Math.nextUp(tie));
            probes.add(Math.nextDown(tie));
        }
        Random random = new Random(99);
        for (int i = 0; i < 1_000_000; i++) {
            probes.add(i % 2 == 0 ? Float.intBitsToFloat(random.nextInt()) : (float) ((random.nextDouble() - 0.5) * Math.pow(2, f.n - f.p)));
        }
        float[] xs = new float[probes.size()];
        double[] ds = new double[probes.size()];
        for (int i = 0; i < xs.length; i++) { xs[i] = probes.get(i); ds[i] = xs[i] * (1 + 0x1p-40 * ((i % 3) - 1)); }
        int[] fromFloat = lib.fromF32("from_f32", xs);
        int[] fromDouble = lib.fromF64("from_f64", ds);
        for (int i = 0; i < xs.length; i++) {
            int want = ref.fromDouble(xs[i]);
            if (fromFloat[i] != want) fail(String.format("from_f32(%s) = 0x%X, expected 0x%X", xs[i], fromFloat[i], want));
            want = ref.fromDouble(ds[i]);
            if (fromDouble[i] != want) fail(String.format("from_f64(%s) = 0x%X, expected 0x%X", ds[i], fromDouble[i], want));
        }
        int[] ints = new int[200_000];
        for (int i = 0; i < ints.length; i++) ints[i] = i < 4000 ? i - 2000 : random.nextInt() >> random.nextInt(32);
        ints[0] = Integer.MIN_VALUE;
        ints[1] = Integer.MAX_VALUE;
        checkUnary("from_i32", lib.fromI32("from_i32", ints), ints, ref::fromInt);
    }

    /** Dot products of lengths 1, 7 and 256 checked against the exact sum rounded once; the accumulator words too. */
    private void checkAccumulation(NativeLibrary lib, Format f, int[] a, int[] b) {
        FixedReference ref = f.reference();
        for (int length : new int[]{1, 7, 256}) {
            int count = Math.min(a.length, 1 << 16) / length * length;
            int[] x = java.util.Arrays.copyOf(a, count), y = java.util.Arrays.copyOf(b, count);
            NativeLibrary.Accumulated dots = lib.dot(x, y, length);
            NativeLibrary.Accumulated sums = lib.sum(x, length);
            for (int g = 0; g < count / length; g++) {
                BigInteger products = BigInteger.ZERO, values = BigInteger.ZERO;
                for (int i = g * length; i < (g + 1) * length; i++) {
                    products = products.add(BigInteger.valueOf(ref.signed(x[i]) * ref.signed(y[i])));
                    values = values.add(BigInteger.valueOf(ref.signed(x[i])).shiftLeft(f.p));
                }
                assertEquals(products, words(dots.accumulators()[g]), "accumulator of dot group " + g);
                assertEquals(ref.roundAccumulated(products), dots.rounded()[g], "rounded dot group " + g + " length " + length);
                assertEquals(ref.roundAccumulated(values), sums.rounded()[g], "rounded sum group " + g + " length " + length);
            }
        }
    }

    /** Little-endian two's-complement words as a signed integer. */
    static BigInteger words(long[] w) {
        BigInteger v = BigInteger.ZERO;
        for (int i = w.length - 1; i >= 0; i--) v = v.shiftLeft(64).or(new BigInteger(Long.toUnsignedString(w[i])));
        return v.testBit(64 * w.length - 1) ? v.subtract(BigInteger.ONE.shiftLeft(64 * w.length)) : v;
    }

    static void check(String op, int[] actual, int[] a, int[] b, IntBinaryOperator expected) {
        for (int i = 0; i < a.length; i++) {
            int want = expected.applyAsInt(a[i], b[i]);
            if (actual[i] != want) fail(String.format("%s(0x%X, 0x%X) = 0x%X, expected 0x%X", op, a[i], b[i], actual[i], want));
        }
    }

    static void checkUnary(String op, int[] actual, int[] x, IntUnaryOperator expected) {
        for (int i = 0; i < x.length; i++) {
            int want = expected.applyAsInt(x[i]);
            if (actual[i] != want) fail(String.format("%s(0x%X) = 0x%X, expected 0x%X", op, x[i], actual[i], want));
        }
    }

    static int nearlyCorrect(FixedReference ref, String op, int x, int actual, double exact) {
        int want = ref.fromDouble(exact);
        if (actual == want) return 0;
        int below = ref.fromDouble(exact - Math.abs(exact) * BOUNDARY_TOLERANCE), above = ref.fromDouble(exact + Math.abs(exact) * BOUNDARY_TOLERANCE);
        if (below != above && (actual == below || actual == above)) return 1;
        fail(String.format("%s(0x%X) = 0x%X, expected 0x%X (exact %s)", op, x, actual, want, exact));
        return 0;
    }
}
