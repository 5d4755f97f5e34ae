package dev.byodt.compiler.dtype;

import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostConversion;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.posit.PositReference;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.DoubleToLongFunction;
import java.util.function.LongBinaryOperator;
import java.util.function.LongToDoubleFunction;

import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.a;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.b;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.expected;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.in;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.matMul;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.run;
import static dev.byodt.compiler.dtype.OperandMagnitudes.largest;
import static dev.byodt.compiler.dtype.OperandMagnitudes.least;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * --accumulate dtype on the host keeps the sums of the datatypes whose add and mul are float32's rounded once in
 * float32 registers ({@link RoundedFloat32Accumulator}), and MatMul still rounds every multiply and every add to the
 * datatype in the order of k: its results against the exact references (rational arithmetic), operation by
 * operation. RISC-V code keeps the datatype's own add and mul, and so do float16 (F16C conversions), posits of up to
 * 8 bits other than posit8 es 2 (16-bit integer add and mul), posits whose products float32 does not hold exactly
 * (posit16 es 1) and fixed point.
 */
class RoundedFloat32AccumulationTest {
    /** A reference's conversions and arithmetic on patterns. */
    private record Reference(DoubleToLongFunction fromDouble, LongToDoubleFunction toDouble, LongBinaryOperator add,
                             LongBinaryOperator mul) {
        static Reference of(MinifloatReference r) {
            return new Reference(r::fromDouble, p -> r.toDouble((int) p), (x, y) -> r.add((int) x, (int) y), (x, y) -> r.mul((int) x, (int) y));
        }

        static Reference of(PositReference r) { return new Reference(r::fromDouble, r::toDouble, r::add, r::mul); }

    }

    private static Reference reference(String datatype) {
        return switch (datatype) {
            case "bfloat16" -> Reference.of(MinifloatReference.ieee(8, 7));
            case "custom[minifloat_e5]12" -> Reference.of(MinifloatReference.ieee(5, 6));
            case "custom[fp8e4m3]8" -> Reference.of(new MinifloatReference(4, 3, MinifloatReference.Specials.FN, false));
            case "custom[fp8e5m2]8" -> Reference.of(MinifloatReference.ieee(5, 2));
            case "custom[posit]16" -> Reference.of(new PositReference(16, 2));
            case "custom[posit]8" -> Reference.of(new PositReference(8, 2));
            default -> throw new IllegalArgumentException(datatype);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"bfloat16", "custom[fp8e4m3]8", "custom[fp8e5m2]8", "custom[minifloat_e5]12", "custom[posit]16", "custom[posit]8"})
    void everyAddAndMultiplyRoundsToTheDatatypeInTheOrderOfK(String datatype) {
        assertEquals(ScalarType.F32, registered(datatype, LoweringTarget.HOST).accumulatorType(), "sums in float32 registers");
        RegisteredDatatype onRiscv = registered(datatype, LoweringTarget.RISCV64);
        assertEquals(onRiscv.storageType(), onRiscv.accumulatorType(), "RISC-V keeps the library's add and mul");

        Reference r = reference(datatype);
        float[] expected = expected((p, q, i, j) -> {
            long acc = r.fromDouble().applyAsLong(0);
            for (int k = 0; k < MatMulAccumulationOrderTest.K; k++) {
                long product = r.mul().applyAsLong(r.fromDouble().applyAsLong(a(p, i, k)), r.fromDouble().applyAsLong(b(q, k, j)));
                acc = r.add().applyAsLong(acc, product);
            }
            return (float) r.toDouble().applyAsDouble(acc);
        });
        assertArrayEquals(expected, run(matMul(), in(datatype, AccumulationMode.DTYPE)), datatype);
    }

    /**
     * The same on operands where rounding is hard: zeros of both signs, NaN, infinities (the saturating formats'
     * largest value), the largest value, the smallest subnormal and ties between neighbours, among values spread
     * over 2^-10 to 2^10, so that products fall among the subnormals and below, sums overflow and cancel, and
     * rounded_f32 meets each case.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bfloat16", "custom[fp8e4m3]8", "custom[fp8e5m2]8", "custom[minifloat_e5]12", "custom[posit]16", "custom[posit]8"})
    void hardOperandsRoundAsTheDatatypeDoes(String datatype) {
        Reference r = reference(datatype);
        int countA = MatMulAccumulationOrderTest.BATCH_A * MatMulAccumulationOrderTest.M * MatMulAccumulationOrderTest.K;
        int countB = MatMulAccumulationOrderTest.BATCH_B * MatMulAccumulationOrderTest.K * MatMulAccumulationOrderTest.N;
        float[] a = hardValues(r, countA, 21), b = hardValues(r, countB, 22);
        assertArrayEquals(referenceMatMul(r, a, b), runMatMul(datatype, a, b), datatype);
    }

    /**
     * posit16's sums round by rounded_f32_with_fraction where the kernel's check proves every product and partial sum
     * zero or of a scale with a fraction bit ({@link PositScales}, RegimeSums), by rounded_f32 elsewhere: operands on
     * both sides of the check, each case's side asserted, results against the reference operation by operation.
     */
    @ParameterizedTest
    @EnumSource(ScaleCheckCase.class)
    void posit16SumsRoundAsThePositOnEitherSideOfTheScaleCheck(ScaleCheckCase c) {
        Reference r = reference("custom[posit]16");
        int countA = MatMulAccumulationOrderTest.BATCH_A * MatMulAccumulationOrderTest.M * MatMulAccumulationOrderTest.K;
        int countB = MatMulAccumulationOrderTest.BATCH_B * MatMulAccumulationOrderTest.K * MatMulAccumulationOrderTest.N;
        float[] a = c.first(countA), b = c.second(countB);
        PositScales scales = new PositScales(16, 2);
        double leastProduct = least(a) * least(b), largestProduct = largest(a) * largest(b);
        boolean within = leastProduct >= scales.leastProduct() && largestProduct <= scales.largestProduct(MatMulAccumulationOrderTest.K).orElseThrow();
        assertEquals(c.within, within, c + ": the side of the check");
        assertArrayEquals(referenceMatMul(r, a, b), runMatMul("custom[posit]16", a, b), c.toString());
    }

    /** Operands of posit16 MatMuls, on the side of the check {@code within} says. */
    enum ScaleCheckCase {
        /** Magnitudes 0.5..1.5 and 2^-8..2^-6, random signs; rows of A in pairs of neighbouring posits of opposite signs, whose sums cancel to a few units. */
        CANCELLING(true),
        /** As CANCELLING with zeros among both operands, which the least magnitudes leave out. */
        ZEROS(true),
        /**
         * Magnitudes 2^17 (and neighbours) on both sides, random signs: 37 products of about 2^34, just below the
         * largest the check accepts for 37 terms (2^34.05), and sums of up to 2^39, where posit16 keeps 3 or 2 fraction bits.
         */
        LARGEST(true),
        /** As CANCELLING with A's first row scaled by 2^-42: its products and sums, near 2^-50, have no fraction bit in the posit. */
        TINY_OPERAND(false),
        /** Magnitudes 2^28..2^29 on both sides: products beyond maxPos = 2^56, which they and the sums saturate at. */
        SUMS_REACH_MAXPOS(false),
        /** As CANCELLING with a NaN (NaR) in A. */
        NAR(false);

        final boolean within;

        ScaleCheckCase(boolean within) { this.within = within; }

        float[] first(int count) {
            PositReference posit = new PositReference(16, 2);
            Random random = new Random(31 + ordinal());
            float[] values = new float[count];
            for (int i = 0; i < count; i++) {
                double magnitude = switch (this) {
                    case LARGEST -> Math.scalb(1.0, 17);
                    case SUMS_REACH_MAXPOS -> Math.scalb(1.0 + random.nextDouble(), 28);
                    default -> 0.5 + random.nextDouble();
                };
                values[i] = (float) posit.toDouble(posit.fromDouble((random.nextBoolean() ? 1 : -1) * magnitude));
                // Each odd k takes the neighbour of the posit at k - 1, of the other sign: their products nearly cancel.
                if (this != SUMS_REACH_MAXPOS && i % 2 == 1 && i % MatMulAccumulationOrderTest.K != 0) {
                    long previous = posit.fromDouble(values[i - 1]);
                    values[i] = (float) -posit.toDouble(previous + (random.nextBoolean() ? 1 : -1));
                }
            }
            if (this == ZEROS) for (int i = 0; i < count; i += 7) values[i] = 0;
            if (this == TINY_OPERAND) for (int i = 0; i < MatMulAccumulationOrderTest.K; i++) values[i] = Math.scalb(values[i], -42);
            if (this == NAR) values[count / 3] = Float.NaN;
            return values;
        }

        float[] second(int count) {
            Random random = new Random(41 + ordinal());
            float[] values = new float[count];
            for (int i = 0; i < count; i++) {
                double magnitude = switch (this) {
                    case LARGEST -> Math.scalb(1.0, 17);
                    case SUMS_REACH_MAXPOS -> Math.scalb(1.0 + random.nextDouble(), 28);
                    // The same value down each column of B (k runs down it), so that a row's pairs of products cancel.
                    default -> Math.scalb(1.0 + random.nextInt(64) / 64.0, -8 + (i % MatMulAccumulationOrderTest.N) % 3);
                };
                values[i] = (float) ((random.nextBoolean() || this != SUMS_REACH_MAXPOS && this != LARGEST ? 1 : -1) * magnitude);
            }
            if (this != SUMS_REACH_MAXPOS && this != LARGEST) {
                for (int i = MatMulAccumulationOrderTest.N; i < count; i++) values[i] = values[i % MatMulAccumulationOrderTest.N];
            }
            if (this == ZEROS) for (int i = 3; i < count; i += 11) values[i] = 0;
            return values;
        }
    }

    /**
     * posit8's sums round 16 columns at a time by posit_rounded_x16.c's rounded_f32_x16, as x + c - c where every
     * value of the vector is zero or at a scale whose posits are multiples of one unit (2^-16 <= |x| < 2^16), by
     * rounded_f32 otherwise: MatMuls whose vectors all take the first way, and ones where some take the second, each
     * case's count of vectors of each kind asserted (by the reference's values: the exact products, the float32 sums),
     * the results against the reference operation by operation.
     */
    @ParameterizedTest
    @EnumSource(VectorCheckCase.class)
    void posit8SumsRoundAsThePositOnEitherSideOfTheVectorCheck(VectorCheckCase c) {
        Reference r = reference("custom[posit]8");
        int countA = MatMulAccumulationOrderTest.BATCH_A * MatMulAccumulationOrderTest.M * MatMulAccumulationOrderTest.K;
        int countB = MatMulAccumulationOrderTest.BATCH_B * MatMulAccumulationOrderTest.K * MatMulAccumulationOrderTest.N;
        float[] a = c.first(countA), b = c.second(countB);
        long[] vectors = vectorsBySide(r, a, b);
        assertEquals(c.outside, vectors[1] > 0, c + ": " + vectors[0] + " vectors within the scales, " + vectors[1] + " not");
        assertTrue(vectors[0] > 0, c + ": some vectors within the scales");
        assertArrayEquals(referenceMatMul(r, a, b), runMatMul("custom[posit]8", a, b), c.toString());
    }

    /** Operands of posit8 MatMuls: all of whose vectors round within the scales, or some not ({@code outside}). */
    enum VectorCheckCase {
        /** Magnitudes 0.5..1.5 and 2^-8..2^-6, random signs: products of 2^-9 to 2^-5, sums that cancel now and then. */
        WITHIN(false),
        /** As WITHIN with zeros among both operands. */
        ZEROS(false),
        /** As WITHIN with A's first row scaled by 2^-12: its products, near 2^-20, are below the scales. */
        TINY_ROW(true),
        /** As WITHIN with one column of B scaled by 2^26: products and sums beyond 2^16, up to maxPos = 2^24. */
        HUGE_COLUMN(true),
        /** As WITHIN with a NaN (NaR) in A. */
        NAR(true);

        final boolean outside;

        VectorCheckCase(boolean outside) { this.outside = outside; }

        float[] first(int count) {
            Random random = new Random(51 + ordinal());
            float[] values = new float[count];
            for (int i = 0; i < count; i++) values[i] = (float) ((random.nextBoolean() ? 1 : -1) * (0.5 + random.nextDouble()));
            if (this == ZEROS) for (int i = 0; i < count; i += 7) values[i] = 0;
            if (this == TINY_ROW) for (int i = 0; i < MatMulAccumulationOrderTest.K; i++) values[i] = Math.scalb(values[i], -12);
            if (this == NAR) values[count / 3] = Float.NaN;
            return values;
        }

        float[] second(int count) {
            Random random = new Random(61 + ordinal());
            float[] values = new float[count];
            for (int i = 0; i < count; i++) values[i] = (float) ((random.nextBoolean() ? 1 : -1) * Math.scalb(1.0 + random.nextDouble(), -8 + random.nextInt(2)));
            if (this == ZEROS) for (int i = 3; i < count; i += 11) values[i] = 0;
            if (this == HUGE_COLUMN) for (int i = 5; i < count; i += MatMulAccumulationOrderTest.N) values[i] = Math.scalb(values[i], 26);
            return values;
        }
    }

    /**
     * How many of the reference's vectors of values to round (16 columns j of an output row at one k, the product's or
     * the sum's: the compiled MatMul's vectors) are all zero or within 2^-16 <= |x| < 2^16, and how many not.
     */
    private static long[] vectorsBySide(Reference r, float[] a, float[] b) {
        int batchA = MatMulAccumulationOrderTest.BATCH_A, batchB = MatMulAccumulationOrderTest.BATCH_B;
        int m = MatMulAccumulationOrderTest.M, k = MatMulAccumulationOrderTest.K, n = MatMulAccumulationOrderTest.N;
        long[] bySide = new long[2];
        for (int p = 0; p < batchA; p++)
            for (int q = 0; q < batchB; q++)
                for (int i = 0; i < m; i++) {
                    long[] acc = new long[16];
                    Arrays.fill(acc, r.fromDouble().applyAsLong(0));
                    for (int kk = 0; kk < k; kk++) {
                        boolean productsWithin = true, sumsWithin = true;
                        for (int j = 0; j < 16; j++) {
                            long x = r.fromDouble().applyAsLong(a[(p * m + i) * k + kk]), y = r.fromDouble().applyAsLong(b[(q * k + kk) * n + j]);
                            float product = (float) r.toDouble().applyAsDouble(x) * (float) r.toDouble().applyAsDouble(y);
                            long rounded = r.mul().applyAsLong(x, y);
                            float sum = (float) r.toDouble().applyAsDouble(acc[j]) + (float) r.toDouble().applyAsDouble(rounded);
                            productsWithin &= withinTheGrid(product);
                            sumsWithin &= withinTheGrid(sum);
                            acc[j] = r.add().applyAsLong(acc[j], rounded);
                        }
                        bySide[productsWithin ? 0 : 1]++;
                        bySide[sumsWithin ? 0 : 1]++;
                    }
                }
        return bySide;
    }

    private static boolean withinTheGrid(float x) {
        return x == 0 || Math.abs(x) >= Math.scalb(1.0f, -16) && Math.abs(x) < Math.scalb(1.0f, 16);
    }

    /** MatMulAccumulationOrderTest's MatMul of {@code a} and {@code b} by the reference, each multiply and add rounded in the order of k. */
    private static float[] referenceMatMul(Reference r, float[] a, float[] b) {
        int batchA = MatMulAccumulationOrderTest.BATCH_A, batchB = MatMulAccumulationOrderTest.BATCH_B;
        int m = MatMulAccumulationOrderTest.M, k = MatMulAccumulationOrderTest.K, n = MatMulAccumulationOrderTest.N;
        float[] expected = new float[batchA * batchB * m * n];
        for (int p = 0; p < batchA; p++)
            for (int q = 0; q < batchB; q++)
                for (int i = 0; i < m; i++)
                    for (int j = 0; j < n; j++) {
                        long acc = r.fromDouble().applyAsLong(0);
                        for (int kk = 0; kk < k; kk++) {
                            long x = r.fromDouble().applyAsLong(a[(p * m + i) * k + kk]), y = r.fromDouble().applyAsLong(b[(q * k + kk) * n + j]);
                            acc = r.add().applyAsLong(acc, r.mul().applyAsLong(x, y));
                        }
                        expected[((p * batchB + q) * m + i) * n + j] = (float) r.toDouble().applyAsDouble(acc);
                    }
        return expected;
    }

    private static float[] runMatMul(String datatype, float[] a, float[] b) {
        int m = MatMulAccumulationOrderTest.M, k = MatMulAccumulationOrderTest.K, n = MatMulAccumulationOrderTest.N;
        try (CompiledModule module = Compiler.compile(matMul(), in(datatype, AccumulationMode.DTYPE)); HostModel model = Compiler.jit(module)) {
            return model.run(List.of(Tensor.ofFloats(new long[] {MatMulAccumulationOrderTest.BATCH_A, 1, m, k}, a),
                Tensor.ofFloats(new long[] {MatMulAccumulationOrderTest.BATCH_B, k, n}, b))).getFirst().toFloatArray();
        }
    }

    /** Seeded values: one in 20 a special or edge value, the others of random sign and magnitude in 2^-10..2^10. */
    private static float[] hardValues(Reference r, int count, long seed) {
        double largest = r.toDouble().applyAsDouble(r.fromDouble().applyAsLong(Double.MAX_VALUE));
        double smallest = r.toDouble().applyAsDouble(1); // pattern 1: the smallest subnormal
        float[] edges = {0.0f, -0.0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, (float) largest, (float) -largest,
            (float) smallest, (float) (1.5 * smallest), 1.0625f, -1.1875f, 3.0f, 0.0078125f};
        Random random = new Random(seed);
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = random.nextInt(20) == 0 ? edges[random.nextInt(edges.length)]
                : (float) ((random.nextBoolean() ? 1 : -1) * (1 + random.nextDouble()) * Math.scalb(1.0, random.nextInt(21) - 10));
        }
        return values;
    }

    @ParameterizedTest
    @ValueSource(strings = {"float16", "custom[posit_es1]8", "custom[posit_es1]16", "fxp16_8"})
    void otherDatatypesKeepTheirAddAndMul(String datatype) {
        RegisteredDatatype d = registered(datatype, LoweringTarget.HOST);
        assertEquals(d.storageType(), d.accumulatorType(), datatype);
    }

    private static RegisteredDatatype registered(String name, LoweringTarget target) {
        DatatypeChoice choice = DatatypeChoice.float32().withDatatype(name);
        DatatypeInstance instance = choice.registry().instance(name, choice.options());
        return new RegisteredDatatype(instance, AccumulationMode.DTYPE, target, Optional.empty(), new LoweringLog(),
            (i, fromF64, toF32) -> HostConversion.of(i.library().orElseThrow(), fromF64, toF32, i.storage(), 0));
    }
}
