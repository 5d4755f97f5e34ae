package dev.byodt.compiler.codegen;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Interpreter;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.DatatypeLowering;
import dev.byodt.compiler.lower.MemoryPlan;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.byodt.compiler.codegen.Programs.buffer;
import static dev.byodt.compiler.kernel.Exprs.*;
import static org.junit.jupiter.api.Assertions.*;

/** Kernel scratch rows and kernel constants through the interpreter, the memory plan and the JIT. */
class ScratchBufferTest {
    static final int M = 3, K = 29, N = 21;

    /**
     * y = x . w^T, w given N x K (a fully connected layer's layout) and packed K x N as a kernel constant;
     * each row of y sums in a scratch row with the loop over columns innermost. The last column is summed by
     * a loop whose extent is a run-time expression, so both loop forms meet the scratch row.
     */
    static Kernel rowsTimesWeights(Buffer x, Buffer y, float[] weightsNK) {
        float[] packedValues = new float[K * N];
        for (int n = 0; n < N; n++) for (int k = 0; k < K; k++) packedValues[k * N + n] = weightsNK[n * K + k];
        KernelBuilder kb = new KernelBuilder("fc", "Gemm", List.of(x), List.of(y));
        Buffer packed = kb.constant("packed", ScalarType.REAL, Tensor.ofFloats(new long[] {K, N}, packedValues));
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {N});
        kb.loop(M, i -> {
            kb.loop(N, j -> kb.store(acc, j, constant(ScalarType.ACC, 0)));
            kb.loop(K, k -> {
                Expr xAt = kb.load(x, flatIndex(x.shape(), i, k));
                Term term = j -> mac(kb.load(acc, j), xAt, kb.load(packed, flatIndex(new long[] {K, N}, k, j)));
                kb.loop(N - 1, j -> kb.store(acc, j, term.apply(j)));
                kb.loop(sub(min(add(k, N), idx(N)), idx(N - 1)), one -> kb.store(acc, idx(N - 1), term.apply(idx(N - 1))));
            });
            kb.loop(N, j -> kb.store(y, flatIndex(y.shape(), i, j), cast(ScalarType.REAL, kb.load(acc, j))));
        });
        return kb.build();
    }

    private interface Term {
        Expr apply(Expr column);
    }

    @Test
    void jitMatchesTheInterpreterAndTheSequentialSumBitForBit() {
        Buffer x = buffer("x", M, K), y = buffer("y", M, N);
        float[] weights = HostModelTest.random(new long[] {N, K}, 7).toFloatArray();
        Kernel kernel = rowsTimesWeights(x, y, weights);
        Tensor input = HostModelTest.random(x.shape(), 8);
        float[] interpreted = Interpreter.run(kernel, List.of(input)).get(0).toFloatArray();

        float[] in = input.toFloatArray();
        float[] sequential = new float[M * N];
        for (int i = 0; i < M; i++) {
            for (int j = 0; j < N; j++) {
                float sum = 0;
                for (int k = 0; k < K; k++) sum = sum + in[i * K + k] * weights[j * K + k];
                sequential[i * N + j] = sum;
            }
        }
        assertArrayEquals(sequential, interpreted);

        Program program = Programs.of(List.of(kernel), List.of(x), List.of(y), Map.of());
        try (var compiled = Compiler.compile(program, CompileOptions.host()); var model = Compiler.jit(compiled)) {
            assertArrayEquals(interpreted, model.run(List.of(input)).get(0).toFloatArray());
            assertEquals(N * 4, compiled.signature().workspaceBytes(), "the scratch row is the only workspace");
        }
    }

    /** Copies src to dst through a scratch row of the given length. */
    private static Kernel copyThroughScratch(String name, Buffer src, Buffer dst, long scratchLength) {
        KernelBuilder kb = new KernelBuilder(name, "Identity", List.of(src), List.of(dst));
        Buffer row = kb.scratch("row", ScalarType.ACC, new long[] {scratchLength});
        kb.loop(src.size(), i -> {
            kb.store(row, rem(i, scratchLength), cast(ScalarType.ACC, kb.load(src, i)));
            kb.store(dst, i, cast(ScalarType.REAL, kb.load(row, rem(i, scratchLength))));
        });
        return kb.build();
    }

    @Test
    void memoryPlanKeepsScratchApartFromItsKernelsBuffersAndSharesItAcrossKernels() {
        Buffer in = buffer("in", 64), t = buffer("t", 64), out = buffer("out", 64);
        Kernel first = copyThroughScratch("first", in, t, 32);
        Kernel second = copyThroughScratch("second", t, out, 16);
        Program machine = DatatypeLowering.lower(Programs.of(List.of(first, second), List.of(in), List.of(out), Map.of()), Programs.float32());
        Buffer temporary = machine.temporaries().getFirst();
        Buffer firstRow = machine.kernels().get(0).scratch().getFirst();
        Buffer secondRow = machine.kernels().get(1).scratch().getFirst();
        assertEquals(ScalarType.F32, firstRow.elementType(), "ACC scratch takes the datatype's machine type");

        MemoryPlan plan = MemoryPlan.of(machine);
        // t (256 bytes, live in both kernels) comes first; each scratch row must avoid it, and as the two
        // rows are never live together they share the bytes after it.
        assertEquals(0, plan.offsetOf(temporary));
        assertEquals(256, plan.offsetOf(firstRow));
        assertEquals(256, plan.offsetOf(secondRow));
        assertEquals(256 + 128, plan.workspaceBytes());

        Tensor input = HostModelTest.random(in.shape(), 9);
        try (var compiled = Compiler.compile(Programs.of(List.of(first, second), List.of(in), List.of(out), Map.of()), CompileOptions.host());
             var model = Compiler.jit(compiled)) {
            assertArrayEquals(input.toFloatArray(), model.run(List.of(input)).get(0).toFloatArray());
        }
    }
}
