package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.byodt.compiler.dtype.DatatypePrograms.q8;
import static dev.byodt.compiler.dtype.DatatypePrograms.t16;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Programs lowered to the test datatypes' libraries compute, bit for bit, what the datatype's rules give
 * when written out in Java: inputs and weights converted once, every add and multiply rounded (accumulate
 * dtype), or the products summed exactly and rounded once (accumulate exact).
 */
class CustomDatatypeLoweringTest {
    private static final int K = 37, N = 19;

    private static float[] seeded(int count, long seed, double scale) {
        Random random = new Random(seed);
        float[] values = new float[count];
        for (int i = 0; i < count; i++) values[i] = (float) ((random.nextDouble() * 2 - 1) * scale);
        return values;
    }

    @Test
    void dotProductRoundsEveryStepInTheDatatype() {
        float[] w = seeded(K * N, 1, 2), x = seeded(K, 2, 3);
        float[] actual = DatatypePrograms.run(DatatypePrograms.dot(w, K, N), DatatypePrograms.in("custom[t16]16"), x);
        float[] expected = new float[N];
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int k = 0; k < K; k++) acc = t16(acc + t16(t16(x[k]) * t16(w[k * N + j])));
            expected[j] = acc;
        }
        assertArrayEquals(expected, actual);
    }

    @Test
    void exactAccumulationRoundsOncePerOutput() {
        float[] w = seeded(K * N, 3, 1), x = seeded(K, 4, 2);
        CompileOptions exact = CompileOptions.host().withDatatypes(
            DatatypeChoice.float32().withDatatype("custom[q8]16").withAccumulation(AccumulationMode.EXACT));
        float[] actual = DatatypePrograms.run(DatatypePrograms.dot(w, K, N), exact, x);
        float[] expected = new float[N];
        for (int j = 0; j < N; j++) {
            double sum = 0;   // exact: products of Q8.8 values are multiples of 2^-16, far inside double's range
            for (int k = 0; k < K; k++) sum += (double) q8(x[k]) * q8(w[k * N + j]);
            expected[j] = q8(sum);
        }
        assertArrayEquals(expected, actual);
    }

    @Test
    void float32AccumulationConvertsOnceAndRoundsOnce() {
        float[] w = seeded(K * N, 5, 2), x = seeded(K, 6, 3);
        CompileOptions float32Sums = CompileOptions.host().withDatatypes(
            DatatypeChoice.float32().withDatatype("custom[t16]16").withAccumulation(AccumulationMode.FLOAT32));
        float[] actual = DatatypePrograms.run(DatatypePrograms.dot(w, K, N), float32Sums, x);
        float[] expected = new float[N];
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int k = 0; k < K; k++) acc = acc + t16(x[k]) * t16(w[k * N + j]);
            expected[j] = t16(acc);
        }
        assertArrayEquals(expected, actual);
    }

    @Test
    void dtypeMapConvertsThroughFloat32WhereDatatypesMeet() {
        Buffer x = new Buffer("x", ScalarType.REAL, new long[] {64});
        Buffer y = new Buffer("y", ScalarType.REAL, new long[] {64});
        Buffer z = new Buffer("z", ScalarType.REAL, new long[] {64});
        KernelBuilder scale = new KernelBuilder("scale", "Mul", List.of(x), List.of(y));
        scale.loop(64, i -> scale.store(y, i, mul(scale.load(x, i), real(2.5))));
        KernelBuilder shift = new KernelBuilder("shift", "Add", List.of(y), List.of(z));
        shift.loop(64, i -> shift.store(z, i, add(shift.load(y, i), real(1.25))));
        List<Kernel> kernels = List.of(scale.build(), shift.build());
        Program program = DatatypePrograms.program(kernels, List.of(x), List.of(z), Map.of());
        CompileOptions mixed = CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype("custom[t16]16")
            .withOverrides(DatatypeChoice.parseOverrides("sh*=custom[q8]16")));
        float[] in = seeded(64, 7, 10);
        float[] actual = DatatypePrograms.run(program, mixed, in);
        float[] expected = new float[64];
        for (int i = 0; i < 64; i++) expected[i] = q8(q8(t16(t16(in[i]) * 2.5f)) + 1.25);
        assertArrayEquals(expected, actual);
    }

    @Test
    void withoutInliningTheOptimizedModuleStillShowsTheLibraryCalls() {
        Program dot = DatatypePrograms.dot(seeded(K * N, 8, 1), K, N);
        try (CompiledModule kept = Compiler.compile(dot, DatatypePrograms.in("custom[t16]16").withInlineLibraries(false));
             CompiledModule inlined = Compiler.compile(dot, DatatypePrograms.in("custom[t16]16"))) {
            String ir = kept.printIr();
            assertTrue(ir.contains("@t16_add(i16") && ir.contains("@t16_mul(i16"), ir.lines().filter(l -> l.contains("call")).limit(5).toList().toString());
            assertTrue(ir.contains("noinline"), "the library functions are marked noinline");
            assertFalse(inlined.printIr().contains("@t16_add"), "with inlining, no call is left");
        }
    }

    @Test
    void theInnerLoopOfASixteenBitDotProductVectorizes() {
        Program dot = DatatypePrograms.dot(seeded(64 * 256, 9, 1), 64, 256);
        try (CompiledModule module = Compiler.compile(dot, DatatypePrograms.in("custom[t16]16"))) {
            String ir = module.printIr();
            assertTrue(ir.matches("(?s).*load <(8|16|32|64) x i16>.*") && ir.matches("(?s).*fmul <(8|16|32|64) x float>.*"),
                "vector loads of the 16-bit accumulators and vector multiplies in float32");
        }
    }

    @Test
    void fallbackComputesMissingOperationsInFloat32AndSaysWhich() {
        Program program = DatatypePrograms.elementwise("act", "Tanh", 16, ScalarType.REAL, dev.byodt.compiler.kernel.Exprs::tanh);
        CompileOptions fallback = CompileOptions.host().withDatatypes(
            DatatypeChoice.float32().withDatatype("custom[t16]16").withFallbackToFloat32(true));
        try (CompiledModule module = Compiler.compile(program, fallback)) {
            assertEquals(List.of("custom[t16]16: tanh (used by Tanh 'act')"), module.fallbacks());
        }
        float[] in = seeded(16, 10, 3);
        float[] out = DatatypePrograms.run(program, fallback, in);
        for (int i = 0; i < 16; i++) {
            float exact = (float) Math.tanh(t16(in[i]));
            assertTrue(out[i] == t16(exact) || out[i] == t16(Math.nextDown(Math.abs(exact)) * Math.signum(exact))
                || out[i] == t16(Math.nextUp(Math.abs(exact)) * Math.signum(exact)), "tanh(" + in[i] + ") = " + out[i]);
        }
    }
}
