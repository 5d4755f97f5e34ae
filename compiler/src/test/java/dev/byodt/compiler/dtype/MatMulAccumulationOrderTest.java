package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.aot.EmitKind;
import dev.byodt.compiler.aot.Emitter;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.ops.Operators;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.byodt.compiler.dtype.DatatypePrograms.q8;
import static dev.byodt.compiler.dtype.DatatypePrograms.t16;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MatMul sums each output's products in the order of k and rounds as the accumulation mode says, whatever
 * order its loops run in: against the datatype's rules written out in Java, and against a kernel written here
 * the plain way (loops i, j, k around one scalar accumulator) compiled in the same datatype and mode.
 * A broadcasts a batch of 2 against B's batch of 3: A is [2, 1, M, K], B [3, K, N], Y [2, 3, M, N].
 */
@Execution(ExecutionMode.CONCURRENT)
class MatMulAccumulationOrderTest {
    static final int BATCH_A = 2, BATCH_B = 3, M = 5, K = 37, N = 19;
    private static final long[] A_SHAPE = {BATCH_A, 1, M, K}, B_SHAPE = {BATCH_B, K, N}, Y_SHAPE = {BATCH_A, BATCH_B, M, N};

    private static float[] seeded(int count, long seed, double scale) {
        Random random = new Random(seed);
        float[] values = new float[count];
        for (int i = 0; i < count; i++) values[i] = (float) ((random.nextDouble() * 2 - 1) * scale);
        return values;
    }

    static final float[] A = seeded(BATCH_A * M * K, 11, 2), B = seeded(BATCH_B * K * N, 12, 3);

    /** The graph of one MatMul node on A and B. */
    static Graph matMul() { return matMul(A_SHAPE, B_SHAPE); }

    /** The graph of one MatMul node on inputs A and B of these shapes. */
    static Graph matMul(long[] aShape, long[] bShape) {
        Value a = new Value("A"), b = new Value("B"), y = new Value("Y");
        a.setType(new TensorType(ElementType.FLOAT32, aShape));
        b.setType(new TensorType(ElementType.FLOAT32, bShape));
        Node node = new Node("matmul", "MatMul", "", 13, List.of(a, b), List.of(y), Map.of());
        y.setType(Operators.lookup("MatMul").inferTypes(node).getFirst());
        return new Graph("matmul", List.of(a, b), List.of(y), List.of(node));
    }

    /**
     * MatMul the plain way: y[p][q][i][j] accumulates a[p][i][k] * b[q][k][j] in one scalar ACC, k innermost. It is
     * no MatMul kernel to the compiler, so that each product converts its own operands (to_f32 with float32 sums)
     * where a MatMul's converts each element once.
     */
    private static Program plainMatMul() {
        Buffer a = new Buffer("A", ScalarType.REAL, A_SHAPE);
        Buffer b = new Buffer("B", ScalarType.REAL, B_SHAPE);
        Buffer y = new Buffer("Y", ScalarType.REAL, Y_SHAPE);
        KernelBuilder kb = new KernelBuilder("matmul", "PlainMatMul", List.of(a, b), List.of(y));
        kb.loops(new long[] {BATCH_A, BATCH_B, M, N}, at -> {
            Local acc = kb.local("acc", constant(ScalarType.ACC, 0));
            kb.loop(K, k -> kb.assign(acc, mac(kb.get(acc),
                kb.load(a, add(mul(add(mul(at[0], M), at[2]), K), k)),
                kb.load(b, add(mul(add(mul(at[1], K), k), N), at[3])))));
            Expr flat = add(mul(add(mul(add(mul(at[0], BATCH_B), at[1]), M), at[2]), N), at[3]);
            kb.store(y, flat, cast(ScalarType.REAL, kb.get(acc)));
        });
        return DatatypePrograms.program(List.of(kb.build()), List.of(a, b), List.of(y), Map.of());
    }

    static float[] run(Graph graph, CompileOptions options) {
        try (CompiledModule module = Compiler.compile(graph, options); HostModel model = Compiler.jit(module)) {
            return model.run(List.of(Tensor.ofFloats(A_SHAPE, A), Tensor.ofFloats(B_SHAPE, B))).getFirst().toFloatArray();
        }
    }

    static CompileOptions in(String datatype, AccumulationMode mode) {
        return CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype(datatype).withAccumulation(mode));
    }

    interface Sum {
        float of(int p, int q, int i, int j);
    }

    static float[] expected(Sum sum) {
        float[] y = new float[BATCH_A * BATCH_B * M * N];
        for (int p = 0; p < BATCH_A; p++)
            for (int q = 0; q < BATCH_B; q++)
                for (int i = 0; i < M; i++)
                    for (int j = 0; j < N; j++) y[((p * BATCH_B + q) * M + i) * N + j] = sum.of(p, q, i, j);
        return y;
    }

    static float a(int p, int i, int k) { return A[(p * M + i) * K + k]; }

    static float b(int q, int k, int j) { return B[(q * K + k) * N + j]; }

    @Test
    void everyAddAndMultiplyRoundsInTheDatatypeInTheOrderOfK() {
        float[] expected = expected((p, q, i, j) -> {
            float acc = 0;
            for (int k = 0; k < K; k++) acc = t16(acc + t16(t16(a(p, i, k)) * t16(b(q, k, j))));
            return acc;
        });
        assertArrayEquals(expected, run(matMul(), in("custom[t16]16", AccumulationMode.DTYPE)));
    }

    @Test
    void float32SumsTakeTheProductsInTheOrderOfK() {
        float[] expected = expected((p, q, i, j) -> {
            float acc = 0;
            for (int k = 0; k < K; k++) acc = acc + t16(a(p, i, k)) * t16(b(q, k, j));
            return t16(acc);
        });
        assertArrayEquals(expected, run(matMul(), in("custom[t16]16", AccumulationMode.FLOAT32)));
    }

    /**
     * float32's own sums under each --multiply-add against exact arithmetic: a separate multiply-add rounds the product,
     * then the sum; a fused one rounds the exact acc + a * b once (BigDecimal's floatValue rounds to nearest, ties to even).
     * posit32's --accumulate float32 sums are the same float32 multiply-adds: its 25 or more significand bits at these
     * magnitudes hold A, B and the sums exactly, so to_f32 and from_f32 change nothing.
     */
    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void float32RoundsEachMultiplyAddAsItsModeSays(MultiplyAdd mode) {
        float[] expected = expected((p, q, i, j) -> {
            float acc = 0;
            for (int k = 0; k < K; k++) {
                BigDecimal product = new BigDecimal(a(p, i, k)).multiply(new BigDecimal(b(q, k, j)));
                if (mode == MultiplyAdd.SEPARATE) product = new BigDecimal(product.floatValue());
                acc = new BigDecimal(acc).add(product).floatValue();
            }
            return acc;
        });
        assertArrayEquals(expected, run(matMul(), CompileOptions.host().withMultiplyAdd(mode)), "float32");
        assertArrayEquals(expected, run(matMul(), in("custom[posit]32", AccumulationMode.FLOAT32).withMultiplyAdd(mode)),
            "custom[posit]32 --accumulate float32");
    }

    /**
     * x86-64's baseline (no FMA3) gets no vfmadd, and separate multiplies and adds neither: llvm.fma becomes a call of
     * fmaf, which the C standard rounds once (riscv32, whose harness brings its own, runs it: RiscvLeNetTest).
     */
    @Test
    void aTargetWithoutTheInstructionCallsFmaf(@TempDir Path dir) throws IOException {
        CompileOptions baseline = CompileOptions.host().withTarget(new Target("x86", "x86_64-unknown-linux-gnu", "x86-64", ""))
            .withMultiplyAdd(MultiplyAdd.FUSED);
        Path asm = dir.resolve("matmul.s");
        try (CompiledModule module = Compiler.compile(matMul(), baseline)) {
            new Emitter().emit(EmitKind.ASM, module, asm);
        }
        String code = Files.readString(asm);
        assertTrue(code.contains("fmaf"), "a call of fmaf");
        assertFalse(code.contains("vfmadd") || code.contains("mulss") || code.contains("mulps"), "no other multiply");
    }

    @Test
    void exactSumsRoundOnce() {
        float[] expected = expected((p, q, i, j) -> {
            double sum = 0;   // exact: products of Q8.8 values are multiples of 2^-16, far inside double's range
            for (int k = 0; k < K; k++) sum += (double) q8(a(p, i, k)) * q8(b(q, k, j));
            return q8(sum);
        });
        assertArrayEquals(expected, run(matMul(), in("custom[q8]16", AccumulationMode.EXACT)));
    }

    /** The built-in libraries, whose exact accumulators are 64 to 512-bit integers, and the fused unit's library. */
    @ParameterizedTest(name = "{0} --accumulate {1}")
    @CsvSource(delimiter = ';', value = {"custom[posit]16; dtype", "custom[posit]16; exact", "custom[posit]8; exact", "custom[posit]32; exact",
        "bfloat16; dtype", "bfloat16; float32", "custom[posit]16; float32", "custom[posit]8; float32", "fxp16_8; float32",
        "float16; float32", "custom[fp8e4m3]8; float32", "float16; exact", "fxp16_8; dtype", "fxp16_8; exact", "fxp32_16; exact",
        "custom[fp8e4m3]8; dtype", "fxp16_13; int:24", "fxp8_4; int:24:saturate", "bfloat16; fused:hopper-fp8",
        "custom[posit]16; fused:F=3,G=4,rounding=rne"})
    void givesTheBitsOfThePlainLoopNest(String datatype, String accumulate) {
        CompileOptions options = in(datatype, AccumulationMode.parse(accumulate));
        float[] plain = DatatypePrograms.run(plainMatMul(), options, A, B);
        assertArrayEquals(plain, run(matMul(), options));
    }
}
