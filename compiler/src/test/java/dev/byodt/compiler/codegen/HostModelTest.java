package dev.byodt.compiler.codegen;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.byodt.compiler.codegen.Programs.buffer;
import static dev.byodt.compiler.codegen.Programs.matmulProgram;
import static dev.byodt.compiler.kernel.Exprs.*;
import static org.junit.jupiter.api.Assertions.*;

class HostModelTest {
    static final long M = 4, K = 37, N = 5;

    static Tensor random(long[] shape, long seed) {
        Random r = new Random(seed);
        float[] v = new float[(int) java.util.Arrays.stream(shape).reduce(1, (a, b) -> a * b)];
        for (int i = 0; i < v.length; i++) v[i] = (float) r.nextGaussian();
        return Tensor.ofFloats(shape, v);
    }

    @Test
    void jitMatchesTheInterpreterBitForBit() {
        Buffer x = buffer("x", M, K), w = buffer("w", K, N), y = buffer("y", M, N), out = buffer("out", M, N), sign = buffer("sign", M, N);
        Program program = matmulProgram(x, w, y, out, sign, random(w.shape(), 1));
        Tensor input = random(x.shape(), 2);

        List<Tensor> reference = GraphInterpreter.run(program, List.of(input));

        try (var compiled = Compiler.compile(program, CompileOptions.host()); var model = Compiler.jit(compiled)) {
            List<Tensor> result = model.run(List.of(input));
            assertArrayEquals(reference.get(0).toFloatArray(), result.get(0).toFloatArray());
            assertArrayEquals(reference.get(1).toFloatArray(), result.get(1).toFloatArray());
            assertEquals(M * N * 4, compiled.signature().workspaceBytes(), "only y is a temporary");
        }
    }

    @Test
    void rejectsInputsOfTheWrongShape() {
        Buffer x = buffer("image", M, K), w = buffer("w", K, N), y = buffer("y", M, N), out = buffer("out", M, N), sign = buffer("sign", M, N);
        Program program = matmulProgram(x, w, y, out, sign, random(w.shape(), 1));
        try (var compiled = Compiler.compile(program, CompileOptions.host()); var model = Compiler.jit(compiled)) {
            ByodtException e = assertThrows(ByodtException.class, () -> model.run(List.of(random(new long[]{2, M, K}, 3))));
            assertEquals("input 'image' has shape 2x4x37 but the model was compiled for 4x37", e.getMessage());
        }
    }

    @Test
    void runsFromManyThreadsAtOnce() throws Exception {
        Buffer x = buffer("x", M, K), w = buffer("w", K, N), y = buffer("y", M, N), out = buffer("out", M, N), sign = buffer("sign", M, N);
        Program program = matmulProgram(x, w, y, out, sign, random(w.shape(), 1));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (var compiled = Compiler.compile(program, CompileOptions.host()); var model = Compiler.jit(compiled)) {
            List<Future<Boolean>> results = new java.util.ArrayList<>();
            for (int t = 0; t < 8; t++) {
                long seed = 100 + t;
                results.add(pool.submit(() -> {
                    Tensor input = random(x.shape(), seed);
                    Tensor outRef = GraphInterpreter.run(program, List.of(input)).get(0);
                    boolean same = true;
                    for (int rep = 0; rep < 200; rep++) {
                        same &= java.util.Arrays.equals(outRef.toFloatArray(), model.run(List.of(input)).get(0).toFloatArray());
                    }
                    return same;
                }));
            }
            for (Future<Boolean> f : results) assertTrue(f.get());
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void elementwiseLoopsAreVectorized() {
        Buffer x = buffer("x", 1024), out = buffer("out", 1024);
        KernelBuilder kb = new KernelBuilder("scale", "Mul", List.of(x), List.of(out));
        kb.loop(1024, i -> kb.store(out, i, add(mul(kb.load(x, i), real(3)), real(1))));
        Program program = Programs.of(List.of(kb.build()), List.of(x), List.of(out), Map.of());
        try (var compiled = Compiler.compile(program, CompileOptions.host())) {
            String ir = compiled.printIr();
            assertTrue(ir.contains("<8 x float>") || ir.contains("<4 x float>") || ir.contains("<16 x float>"), ir);
        }
    }
}
