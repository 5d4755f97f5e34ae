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
import org.junit.jupiter.params.provider.ValueSource;

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
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * --accumulate dtype on the host keeps the sums of the datatypes whose add and mul are float32's rounded once in
 * float32 registers ({@link RoundedFloat32Accumulator}), and MatMul still rounds every multiply and every add to the
 * datatype in the order of k: its results against the exact references (rational arithmetic), operation by
 * operation. RISC-V code keeps the datatype's own add and mul, and so do float16 (F16C conversions), posits of up to
 * 8 bits (16-bit integer add and mul), posits whose products float32 does not hold exactly (posit16 es 1) and fixed
 * point.
 */
class RoundedFloat32AccumulationTest {
    /** A reference's conversions and arithmetic on patterns. */
    private record Reference(DoubleToLongFunction fromDouble, LongToDoubleFunction toDouble, LongBinaryOperator add,
                             LongBinaryOperator mul) {
        static Reference of(MinifloatReference r) {
            return new Reference(r::fromDouble, p -> r.toDouble((int) p), (x, y) -> r.add((int) x, (int) y), (x, y) -> r.mul((int) x, (int) y));
        }

    }

    private static Reference reference(String datatype) {
        return switch (datatype) {
            case "bfloat16" -> Reference.of(MinifloatReference.ieee(8, 7));
            case "custom[minifloat_e5]12" -> Reference.of(MinifloatReference.ieee(5, 6));
            case "custom[fp8e4m3]8" -> Reference.of(new MinifloatReference(4, 3, MinifloatReference.Specials.FN, false));
            case "custom[fp8e5m2]8" -> Reference.of(MinifloatReference.ieee(5, 2));
            case "custom[posit]16" -> {
                PositReference posit = new PositReference(16, 2);
                yield new Reference(posit::fromDouble, posit::toDouble, posit::add, posit::mul);
            }
            default -> throw new IllegalArgumentException(datatype);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"bfloat16", "custom[fp8e4m3]8", "custom[fp8e5m2]8", "custom[minifloat_e5]12", "custom[posit]16"})
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
    @ValueSource(strings = {"bfloat16", "custom[fp8e4m3]8", "custom[fp8e5m2]8", "custom[minifloat_e5]12", "custom[posit]16"})
    void hardOperandsRoundAsTheDatatypeDoes(String datatype) {
        Reference r = reference(datatype);
        int batchA = MatMulAccumulationOrderTest.BATCH_A, batchB = MatMulAccumulationOrderTest.BATCH_B;
        int m = MatMulAccumulationOrderTest.M, k = MatMulAccumulationOrderTest.K, n = MatMulAccumulationOrderTest.N;
        float[] a = hardValues(r, batchA * m * k, 21), b = hardValues(r, batchB * k * n, 22);
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
        float[] got;
        try (CompiledModule module = Compiler.compile(matMul(), in(datatype, AccumulationMode.DTYPE)); HostModel model = Compiler.jit(module)) {
            got = model.run(List.of(Tensor.ofFloats(new long[] {batchA, 1, m, k}, a), Tensor.ofFloats(new long[] {batchB, k, n}, b)))
                .getFirst().toFloatArray();
        }
        assertArrayEquals(expected, got, datatype);
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
    @ValueSource(strings = {"float16", "custom[posit]8", "custom[posit_es1]16", "fxp16_8"})
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
