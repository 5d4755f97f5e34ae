package dev.byodt.compiler.dtype.floats;

import dev.byodt.compiler.dtype.BuiltInLibraries;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.StochasticRounding;
import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.harness.StandardFunctions;
import dev.byodt.compiler.dtype.reference.Erf;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.compiler.dtype.reference.MinifloatReference.Specials;
import dev.byodt.compiler.dtype.reference.Rational;
import dev.byodt.compiler.dtype.reference.Rounding;
import dev.byodt.compiler.target.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
import java.util.function.IntUnaryOperator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * minifloat.c (float16, bfloat16, fp8e5m2, fp8e3m4 (minifloat_e3 at 8 bits), and through MF_SPECIALS and
 * MF_UNSIGNED OCP fp8e4m3, the ONNX FNUZ float8s, the OCP MX elements fp6e3m2, fp6e2m3, fp4e2m1 and scale e8m0,
 * and NVFP4's ue4m3 scale) bit for bit against {@link MinifloatReference}: every pair of operands of at most 8
 * bits, every 16-bit value for unary operations and conversions, and 300,000 seeded pairs plus edge cases for
 * 16-bit binary operations ({@link Float16AllPairsTest}, -Pexhaustive, checks every float16 pair).
 * float16 is tested twice: as the host's models get it (on x86-64 with F16C, hardware conversions) and with the
 * integer code of every other target. Formats at the edges of the float32 path (exponent bits 7 and 8) and
 * beyond it (the double path) get fewer seeded pairs, and every 16-bit format gets pairs whose products and
 * quotients fall among its (and float32's) subnormals.
 */
@Execution(ExecutionMode.CONCURRENT)
class MinifloatLibraryTest {
    static final String SOURCE = "dev/byodt/datatypes/minifloat/minifloat.c";
    static final int RANDOM_PAIRS = 300_000;
    /** A transcendental may differ from the reference only where the exact value is this close to a rounding boundary. */
    static final double BOUNDARY_TOLERANCE = 0x1p-40;

    /** A format and the clang flags it is compiled with ({@code hostFlags}: the host target's, as models get them). */
    record Format(String name, int e, int m, Specials specials, boolean unsigned, int accumulatorBits, boolean hostFlags) {
        Format(String name, int e, int m, int accumulatorBits, boolean hostFlags) {
            this(name, e, m, Specials.IEEE, false, accumulatorBits, hostFlags);
        }

        Format(String name, int e, int m, int accumulatorBits) {
            this(name, e, m, Specials.IEEE, false, accumulatorBits, false);
        }

        Format(String name, int e, int m, Specials specials, boolean unsigned, int accumulatorBits) {
            this(name, e, m, specials, unsigned, accumulatorBits, false);
        }

        MinifloatReference reference() { return reference(RoundingMode.NEAREST_EVEN); }

        MinifloatReference reference(RoundingMode mode) { return new MinifloatReference(e, m, specials, unsigned, mode); }

        NativeLibrary compile() { return compile(RoundingMode.NEAREST_EVEN); }

        NativeLibrary compile(RoundingMode mode) { return compile(mode, StochasticRounding.DEFAULT_BITS); }

        /**
         * The library rounding in {@code mode}, stochastically with {@code srBits} random bits: every function, and
         * rounded_f32 where it has it, so that the tests of its functions share one library per format and mode.
         */
        NativeLibrary compile(RoundingMode mode, int srBits) {
            Map<String, FunctionShape> functions = StandardFunctions.all();
            if (hasRoundedF32(mode)) functions.put("rounded_f32", FunctionShape.FLOAT_TO_FLOAT);
            NativeLibrary.Builder b = NativeLibrary.builder(BuiltInLibraries.of(SOURCE), name, storageBits()).operations(functions)
                .define("MF_EXP_BITS", "" + e).define("MF_FRAC_BITS", "" + m).accumulatorBits(accumulatorBits);
            mode.defines().forEach(d -> b.define(d.substring(0, d.indexOf('=')), d.substring(d.indexOf('=') + 1)));
            if (mode == RoundingMode.STOCHASTIC) b.define("BYODT_SR_BITS", "" + srBits);
            if (specials != Specials.IEEE) b.define("MF_SPECIALS", "MF_SPECIALS_" + specials);
            if (unsigned) b.define("MF_UNSIGNED", "1");
            if (hostFlags) Target.host().clangFlags().forEach(b::flag);
            return b.build();
        }

        /**
         * Whether minifloat.c defines rounded_f32 in {@code mode} (its MF_VIA_FLOAT): the formats whose + - * / are
         * exact in float32 arithmetic, rounding to nearest even.
         */
        boolean hasRoundedF32(RoundingMode mode) {
            return mode == RoundingMode.NEAREST_EVEN && ((e <= 7 && m >= 1 && m <= 10)
                || (e == 8 && m >= 1 && m <= 7 && specials == Specials.IEEE && !unsigned));
        }

        int bits() { return (unsigned ? 0 : 1) + e + m; }

        int storageBits() { return bits() <= 8 ? 8 : bits() <= 16 ? 16 : 32; }

        @Override public String toString() { return hostFlags ? name + " (host flags)" : name; }
    }

    static final Format FP8E5M2 = new Format("mf_e5m2", 5, 2, 128);
    static final Format FP8E4M3 = new Format("fp8e4m3", 4, 3, Specials.FN, false, 64);
    static final Format FP8E3M4 = new Format("fp8e3m4", 3, 4, 64);
    static final Format FP8E4M3FNUZ = new Format("fp8e4m3fnuz", 4, 3, Specials.FNUZ, false, 64);
    static final Format FP8E5M2FNUZ = new Format("fp8e5m2fnuz", 5, 2, Specials.FNUZ, false, 128);
    static final Format FP6E3M2 = new Format("fp6e3m2", 3, 2, Specials.NONE, false, 64);
    static final Format FP6E2M3 = new Format("fp6e2m3", 2, 3, Specials.NONE, false, 64);
    static final Format FP4E2M1 = new Format("fp4e2m1", 2, 1, Specials.NONE, false, 64);
    static final Format E8M0 = new Format("e8m0", 8, 0, Specials.FN, true, 1024);
    static final Format UE4M3 = new Format("ue4m3", 4, 3, Specials.FN, true, 64);
    static final Format FLOAT16 = new Format("mf_e5m10", 5, 10, 128);
    static final Format FLOAT16_HOST = new Format("mf_e5m10", 5, 10, 128, true);
    static final Format BFLOAT16 = new Format("mf_e8m7", 8, 7, 1024);

    static Stream<Format> eightBit() {
        return Stream.of(FP8E5M2, FP8E4M3, FP8E3M4, FP8E4M3FNUZ, FP8E5M2FNUZ, FP6E3M2, FP6E2M3, FP4E2M1, E8M0, UE4M3);
    }

    static Stream<Format> sixteenBit() { return Stream.of(FLOAT16, FLOAT16_HOST, BFLOAT16); }

    /** The widest exponents of the float32 path (E 7 with M 8; E 8 with M 5), and past it (E 9; M 11 at 20 bits). */
    static Stream<Format> otherWidths() {
        return Stream.of(new Format("mf_e7m8", 7, 8, 0), new Format("mf_e8m5", 8, 5, 0),
            new Format("mf_e9m6", 9, 6, 0), new Format("mf_e8m11", 8, 11, 0));
    }

    static Stream<Format> all() { return Stream.concat(eightBit(), sixteenBit()); }

    static int[] everyValue(Format f) {
        int[] v = new int[1 << f.bits()];
        for (int i = 0; i < v.length; i++) v[i] = i;
        return v;
    }

    /**
     * The reference's formats are the published ones: largest and smallest positive values as the OCP FP8 and MX
     * specifications, NVIDIA's NVFP4 description, the ONNX FNUZ types and ml_dtypes state them.
     */
    @Test
    void elementFormatsHaveTheirPublishedRanges() {
        assertRange(FP8E4M3, 448, 0x1p-9);
        assertRange(FP8E4M3FNUZ, 240, 0x1p-10);
        assertRange(FP8E5M2FNUZ, 57344, 0x1p-17);
        assertRange(FP8E3M4, 15.5, 0x1p-6);
        assertRange(FP6E3M2, 28, 0.0625);
        assertRange(FP6E2M3, 7.5, 0.125);
        assertRange(FP4E2M1, 6, 0.5);
        assertRange(E8M0, 0x1p127, 0x1p-127);
        assertRange(UE4M3, 448, 0x1p-9);
        double[] fp4 = new double[8];
        for (int a = 0; a < 8; a++) fp4[a] = FP4E2M1.reference().toDouble(a);
        assertArrayEquals(new double[]{0, 0.5, 1, 1.5, 2, 3, 4, 6}, fp4, "OCP MX FP4 E2M1's positive values");
    }

    private static void assertRange(Format f, double largest, double smallest) {
        MinifloatReference ref = f.reference();
        double min = Double.MAX_VALUE;
        for (int a = 0; a < ref.count(); a++) {
            double v = ref.toDouble(a);
            if (v > 0 && v < min) min = v;
        }
        assertEquals(largest, ref.toDouble(ref.largestFinite(false)), f + " largest");
        assertEquals(smallest, min, f + " smallest positive");
    }

    @ParameterizedTest
    @MethodSource("eightBit")
    void everyPairOfEightBitOperands(Format f) {
        MinifloatReference ref = f.reference();
        int n = ref.count();
        int[] a = new int[n * n], b = new int[n * n];
        for (int i = 0; i < n * n; i++) { a[i] = i / n; b[i] = i % n; }
        try (NativeLibrary lib = f.compile()) {
            checkBinary(lib, ref, a, b);
        }
    }

    @ParameterizedTest
    @MethodSource("sixteenBit")
    void randomPairsAndEdgeCasesOfSixteenBitOperands(Format f) {
        checkRandomPairsAndEdgeCases(f, RANDOM_PAIRS);
    }

    @ParameterizedTest
    @MethodSource("otherWidths")
    void randomPairsAndEdgeCasesOfOtherWidths(Format f) {
        checkRandomPairsAndEdgeCases(f, RANDOM_PAIRS / 5);
    }

    private void checkRandomPairsAndEdgeCases(Format f, int randomPairs) {
        MinifloatReference ref = f.reference();
        List<Integer> edges = edgeValues(f, ref);
        Random random = new Random(20240611L + f.m);
        int edgeCount = edges.size() * edges.size();
        int[] a = new int[randomPairs + edgeCount], b = new int[a.length];
        for (int i = 0; i < randomPairs; i++) { a[i] = random.nextInt(ref.count()); b[i] = random.nextInt(ref.count()); }
        for (int i = 0; i < edgeCount; i++) {
            a[randomPairs + i] = edges.get(i / edges.size());
            b[randomPairs + i] = edges.get(i % edges.size());
        }
        // Pairs whose sum or product is exactly a tie: x + ulp/2 style pairs, from neighbouring exponents.
        for (int i = 0; i < randomPairs / 10; i++) {
            int x = random.nextInt(ref.count()) & ((ref.count() >> 1) - 1);
            a[i] = x;
            b[i] = Math.max(0, ((x >> f.m) - f.m - 1)) << f.m;              // 2^(exp(x) - M - 1): half an ulp of x
        }
        try (NativeLibrary lib = f.compile()) {
            checkBinary(lib, ref, a, b);
        }
    }

    /**
     * Operands from the lowest 24 binades (subnormals included) with operands near 1 and with each other:
     * sums of subnormals, and products and quotients that are subnormal or underflow, which for bfloat16 and
     * the other 8-exponent-bit formats are float32 subnormals on the float32 path.
     */
    @ParameterizedTest
    @MethodSource({"sixteenBit", "otherWidths"})
    void pairsWithSubnormalResults(Format f) {
        MinifloatReference ref = f.reference();
        Random random = new Random(1400L + f.e);
        int pairs = 200_000, bias = (1 << (f.e - 1)) - 1, binades = Math.min(24, (1 << f.e) - 2);
        int[] a = new int[pairs], b = new int[pairs];
        for (int i = 0; i < pairs; i++) {
            a[i] = randomInBinades(f, random, 0, binades);
            b[i] = i % 2 == 0 ? randomInBinades(f, random, 0, binades)
                : randomInBinades(f, random, Math.max(0, bias - binades), Math.min((1 << f.e) - 2, bias + binades));
        }
        try (NativeLibrary lib = f.compile()) {
            check("add", lib.binary("add", a, b), a, b, ref::add);
            check("sub", lib.binary("sub", a, b), a, b, ref::sub);
            check("mul", lib.binary("mul", a, b), a, b, ref::mul);
            check("div", lib.binary("div", a, b), a, b, ref::div);
            check("div", lib.binary("div", b, a), b, a, ref::div);
        }
    }

    /** A value with a random sign and fraction whose biased exponent field lies in [low, high]. */
    private static int randomInBinades(Format f, Random random, int low, int high) {
        int exponent = low + random.nextInt(high - low + 1);
        return (random.nextBoolean() ? 1 << (f.e + f.m) : 0) | exponent << f.m | random.nextInt(1 << f.m);
    }

    static List<Integer> edgeValues(Format f, MinifloatReference ref) {
        List<Integer> v = new ArrayList<>();
        int sign = 1 << (f.e + f.m);
        for (int s : new int[]{0, sign}) {
            v.add(s);                                    // zero
            v.add(s | 1);                                // smallest subnormal
            v.add(s | ((1 << f.m) - 1));                 // largest subnormal
            v.add(s | (1 << f.m));                       // smallest normal
            v.add(s | ref.round(Rational.of(1), false)); // one
            v.add(s | (ref.round(Rational.of(1), false) + 1));
            v.add(ref.largestFinite(s != 0));
            v.add(s | ref.nan());
            if (ref.hasInfinity()) v.add(ref.infinity(s != 0));
        }
        return v;
    }

    /** + - * / of every pair (a[i], b[i]): the binary operations that round. */
    static void checkRoundedArithmetic(NativeLibrary lib, MinifloatReference ref, int[] a, int[] b) {
        check("add", lib.binary("add", a, b), a, b, ref::add);
        check("sub", lib.binary("sub", a, b), a, b, ref::sub);
        check("mul", lib.binary("mul", a, b), a, b, ref::mul);
        check("div", lib.binary("div", a, b), a, b, ref::div);
    }

    /** Every binary operation of every pair (a[i], b[i]). */
    static void checkBinary(NativeLibrary lib, MinifloatReference ref, int[] a, int[] b) {
        checkRoundedArithmetic(lib, ref, a, b);
        check("min", lib.binary("min", a, b), a, b, ref::min);
        check("max", lib.binary("max", a, b), a, b, ref::max);
        check("lt", lib.compare("lt", a, b), a, b, (x, y) -> ref.lt(x, y) ? 1 : 0);
        check("le", lib.compare("le", a, b), a, b, (x, y) -> ref.toDouble(x) <= ref.toDouble(y) ? 1 : 0);
        check("gt", lib.compare("gt", a, b), a, b, (x, y) -> ref.lt(y, x) ? 1 : 0);
        check("ge", lib.compare("ge", a, b), a, b, (x, y) -> ref.toDouble(x) >= ref.toDouble(y) ? 1 : 0);
        check("eq", lib.compare("eq", a, b), a, b, (x, y) -> ref.toDouble(x) == ref.toDouble(y) ? 1 : 0);
        check("ne", lib.compare("ne", a, b), a, b, (x, y) -> ref.toDouble(x) != ref.toDouble(y) ? 1 : 0);
        int[] pow = lib.binary("pow", a, b);
        int tolerated = 0;
        for (int i = 0; i < a.length; i++) {
            double x = ref.toDouble(a[i]);
            double y = ref.toDouble(b[i]), power = cPow(x, y);
            tolerated += nearlyCorrect(ref, "pow", a[i], pow[i], Double.isFinite(y) ? finiteWhereExact(x, power) : power);
        }
        System.out.printf("%s pow: %d pairs, %d within %s of a rounding boundary%n", lib.prefix(), a.length, tolerated, BOUNDARY_TOLERANCE);
    }

    /**
     * The result of a function of finite x whose exact value is finite and nonzero (exp, sigmoid, pow of a nonzero
     * base to a finite power) where double overflowed to infinity or underflowed to 0: the largest or smallest double of its sign,
     * which rounds as the exact value does in every mode (all formats here lie far inside double's range).
     */
    static double finiteWhereExact(double x, double result) {
        if (!Double.isFinite(x) || x == 0) return result;
        if (Double.isInfinite(result)) return Math.copySign(Double.MAX_VALUE, result);
        return result == 0 ? Math.copySign(Double.MIN_VALUE, result) : result;
    }

    /** C99 pow: Java's Math.pow differs only for pow(1, NaN) and pow(-1, +-inf), which are 1 in C. */
    static double cPow(double x, double y) {
        if (x == 1 || (x == -1 && Double.isInfinite(y))) return 1;
        return Math.pow(x, y);
    }

    static void check(String op, int[] actual, int[] a, int[] b, IntBinaryOperator expected) {
        for (int i = 0; i < a.length; i++) {
            int want = expected.applyAsInt(a[i], b[i]);
            if (actual[i] != want) {
                fail(String.format("%s(0x%X, 0x%X) = 0x%X, expected 0x%X", op, a[i], b[i], actual[i], want));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("all")
    void everyValueOfUnaryOperations(Format f) {
        try (NativeLibrary lib = f.compile()) {
            checkEveryValueOfUnaryOperations(lib, f.reference(), everyValue(f));
        }
    }

    static void checkEveryValueOfUnaryOperations(NativeLibrary lib, MinifloatReference ref, int[] x) {
        checkUnary("neg", lib.unary("neg", x), x, ref::neg);
        checkUnary("abs", lib.unary("abs", x), x, ref::abs);
        checkUnary("sqrt", lib.unary("sqrt", x), x, ref::sqrt);
        checkTranscendental(lib, ref, "exp", x, v -> finiteWhereExact(v, Math.exp(v)));
        checkTranscendental(lib, ref, "log", x, Math::log);
        checkTranscendental(lib, ref, "tanh", x, Math::tanh);
        checkTranscendental(lib, ref, "sigmoid", x, v -> finiteWhereExact(v, 1 / (1 + Math.exp(-v))));
        checkTranscendental(lib, ref, "erf", x, Erf::erf);
        checkTranscendental(lib, ref, "sin", x, StrictMath::sin);
        checkTranscendental(lib, ref, "cos", x, StrictMath::cos);
        checkUnary("floor", lib.unary("floor", x), x, a -> integral(ref, a, Rounding::floor));
        checkUnary("ceil", lib.unary("ceil", x), x, a -> integral(ref, a, Rounding::ceil));
        checkUnary("round", lib.unary("round", x), x, a -> integral(ref, a, Rounding::nearestEven));
    }

    /** a rounded to an integer exactly, its sign kept on a zero result (IEEE's roundToIntegral); NaN and infinities stay. */
    static int integral(MinifloatReference ref, int a, Function<Rational, BigInteger> rounding) {
        if (ref.isNaN(a)) return ref.nan();
        if (ref.isInfinite(a)) return a;
        boolean negative = Double.doubleToRawLongBits(ref.toDouble(a)) < 0;
        return ref.round(Rational.of(rounding.apply(ref.value(a))), negative);
    }

    static void checkUnary(String op, int[] actual, int[] x, IntUnaryOperator expected) {
        for (int i = 0; i < x.length; i++) {
            int want = expected.applyAsInt(x[i]);
            if (actual[i] != want) fail(String.format("%s(0x%X) = 0x%X, expected 0x%X", op, x[i], actual[i], want));
        }
    }

    static void checkTranscendental(NativeLibrary lib, MinifloatReference ref, String op, int[] x, DoubleUnaryOperator f) {
        int[] actual = lib.unary(op, x);
        int tolerated = 0;
        for (int i = 0; i < x.length; i++) tolerated += nearlyCorrect(ref, op, x[i], actual[i], f.applyAsDouble(ref.toDouble(x[i])));
        System.out.printf("%s %s: %d values, %d within %s of a rounding boundary%n", lib.prefix(), op, x.length, tolerated, BOUNDARY_TOLERANCE);
    }

    /**
     * 0 when actual is the exact rounding of the reference double, 1 when it is the other rounding of a
     * near-boundary value: the rounding of a value within the tolerance of it, or, in the directed modes, whose
     * boundaries are the format's values, a format value within the tolerance of it (tanh of a large argument,
     * 1 - 1e-16, that the library computes as 1).
     */
    static int nearlyCorrect(MinifloatReference ref, String op, int x, int actual, double exact) {
        int want = ref.fromDouble(exact);
        if (actual == want) return 0;
        int below = ref.fromDouble(exact * (1 - BOUNDARY_TOLERANCE)), above = ref.fromDouble(exact * (1 + BOUNDARY_TOLERANCE));
        if (below != above && (actual == below || actual == above)) return 1;
        if (exact != 0 && ref.isFinite(actual) && Math.abs(ref.toDouble(actual) - exact) <= Math.abs(exact) * BOUNDARY_TOLERANCE) return 1;
        fail(String.format("%s(0x%X) = 0x%X, expected 0x%X (exact %s)", op, x, actual, want, exact));
        return 0;
    }

    @ParameterizedTest
    @MethodSource("all")
    void conversions(Format f) {
        MinifloatReference ref = f.reference();
        try (NativeLibrary lib = f.compile()) {
            checkConversions(lib, ref, everyValue(f), float32Probes(ref, 1, 300_000), 100_000);
        }
    }

    /**
     * to_f32, to_i32 and lowest of every value x, from_f32 and from_f64 of the probes and their neighbours,
     * from_i32 of {@code integers} integers: -1000..999, the int32 extremes and seeded ones of every size.
     */
    static void checkConversions(NativeLibrary lib, MinifloatReference ref, int[] x, float[] probes, int integers) {
        float[] floats = lib.toF32("to_f32", x);
        for (int i = 0; i < x.length; i++) {
            assertEquals(Float.floatToIntBits(ref.toFloat(x[i])), Float.floatToIntBits(floats[i]), "to_f32 " + x[i]);
        }
        checkUnary("to_i32", lib.toI32("to_i32", x), x, ref::toInt);
        assertEquals(ref.lowest(), lib.constant("lowest"));

        int[] rounded = lib.fromF32("from_f32", probes);
        for (int i = 0; i < probes.length; i++) {
            int want = ref.fromDouble(probes[i]);
            if (rounded[i] != want) fail(String.format("from_f32(%s) = 0x%X, expected 0x%X", probes[i], rounded[i], want));
        }
        double[] doubles = new double[probes.length];
        for (int i = 0; i < probes.length; i++) doubles[i] = probes[i] * (1 + 0x1p-30 * ((i % 3) - 1));
        int[] fromDoubles = lib.fromF64("from_f64", doubles);
        for (int i = 0; i < doubles.length; i++) {
            int want = ref.fromDouble(doubles[i]);
            if (fromDoubles[i] != want) fail(String.format("from_f64(%s) = 0x%X, expected 0x%X", doubles[i], fromDoubles[i], want));
        }
        Random random = new Random(5);
        int[] ints = new int[integers];
        for (int i = 0; i < ints.length; i++) ints[i] = i < 2000 ? i - 1000 : random.nextInt() >> random.nextInt(32);
        ints[0] = Integer.MIN_VALUE;
        ints[1] = Integer.MAX_VALUE;
        checkUnary("from_i32", lib.fromI32("from_i32", ints), ints, ref::fromInt);
    }

    /**
     * Every float32 whose rounding to the format is a tie (the midpoint of two neighbours) and its two float32
     * neighbours, every format value and its two float32 neighbours (of every {@code stride}th value only, when
     * more than 1), float32 specials, and {@code randoms} seeded random float32 bit patterns and two thirds as many
     * values within the format's range.
     */
    static float[] float32Probes(MinifloatReference ref, int stride, int randoms) {
        List<Float> probes = new ArrayList<>();
        for (float special : new float[]{Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f,
            Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, -Float.MIN_VALUE}) probes.add(special);
        for (int a = 0; a < ref.count(); a += stride) {
            if (!ref.isFinite(a)) continue;
            double v = ref.toDouble(a);
            probes.add((float) v);
            probes.add(Math.nextUp((float) v));
            probes.add(Math.nextDown((float) v));
            int next = a + 1;
            Rational midpoint;
            if (ref.isFinite(next) && next < ref.count() && (next & ref.signBit()) == (a & ref.signBit())) {
                midpoint = ref.value(a).add(ref.value(next)).multiply(new Rational(BigInteger.ONE, BigInteger.TWO));
            } else {
                continue;
            }
            float tie = midpoint.toBigDecimal(60).floatValue();
            if (Rational.of(tie).compareTo(midpoint) != 0) continue;   // a midpoint float32 cannot hold
            probes.add(tie);
            probes.add(Math.nextUp(tie));
            probes.add(Math.nextDown(tie));
        }
        // The overflow threshold: the midpoint between the largest finite value and the next binade's start.
        Random random = new Random(42);
        for (int i = 0; i < randoms; i++) probes.add(Float.intBitsToFloat(random.nextInt()));
        for (int i = 0; i < randoms * 2 / 3; i++) probes.add((float) ((random.nextDouble() - 0.5) * 2 * ref.toDouble(ref.largestFinite(false)) * 1.1));
        float[] result = new float[probes.size()];
        for (int i = 0; i < result.length; i++) result[i] = probes.get(i);
        return result;
    }

    /**
     * Exact accumulation: seeded random dot products and sums of finite values (lengths 1, 7 and 64), each
     * against the exact rational sum rounded once; then infinities and NaN, which the accumulator flags.
     */
    @ParameterizedTest
    @MethodSource("all")
    void exactAccumulationRoundsTheExactSumOnce(Format f) {
        try (NativeLibrary lib = f.compile()) {
            checkExactAccumulation(lib, f.reference(), new Random(77 + f.e));
        }
    }

    static void checkExactAccumulation(NativeLibrary lib, MinifloatReference ref, Random random) {
        for (int length : new int[]{1, 7, 64}) {
            int count = (1 << 14) / length * length;
            int[] a = new int[count], b = new int[count];
            for (int i = 0; i < count; i++) {
                do { a[i] = random.nextInt(ref.count()); } while (!ref.isFinite(a[i]));
                do { b[i] = random.nextInt(ref.count()); } while (!ref.isFinite(b[i]));
            }
            NativeLibrary.Accumulated dots = lib.dot(a, b, length), sums = lib.sum(a, length);
            for (int g = 0; g < count / length; g++) {
                Rational dot = Rational.ZERO, sum = Rational.ZERO;
                for (int i = g * length; i < (g + 1) * length; i++) {
                    dot = dot.add(ref.value(a[i]).multiply(ref.value(b[i])));
                    sum = sum.add(ref.value(a[i]));
                }
                assertEquals(ref.round(dot, false), dots.rounded()[g], "dot group " + g + " of length " + length);
                assertEquals(ref.round(sum, false), sums.rounded()[g], "sum group " + g + " of length " + length);
            }
        }
        int one = ref.round(Rational.of(1), false), nan = ref.nan();
        if (ref.hasNaN()) assertEquals(nan, lib.dot(new int[]{one, nan}, new int[]{one, one}, 2).rounded()[0]);
        if (ref.hasInfinity()) {
            int inf = ref.infinity(false), minusInf = ref.infinity(true);
            assertEquals(inf, lib.dot(new int[]{one, inf}, new int[]{one, one}, 2).rounded()[0]);
            assertEquals(minusInf, lib.sum(new int[]{minusInf, one}, 2).rounded()[0]);
            assertEquals(nan, lib.sum(new int[]{inf, minusInf}, 2).rounded()[0]);
            assertEquals(nan, lib.dot(new int[]{inf}, new int[]{0}, 1).rounded()[0]);
        }
    }
}
