package dev.byodt.compiler.target;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.byodt.compiler.kernel.Exprs.*;
import static org.junit.jupiter.api.Assertions.*;

/** Executables emitted from the backend's CompiledModule must compute exactly what the JIT computes from it. */
class CompiledExecutableTest {
    @TempDir
    Path work;

    private List<Tensor> runExecutable(CompiledModule compiled, List<Path> inputFiles) throws Exception {
        Path exe = work.resolve("model");
        new Emitter(BundledTools.locate(work.resolve("cache"))).emit(EmitKind.EXE, compiled, exe);
        Path out = Files.createDirectories(work.resolve("out"));
        List<String> command = new ArrayList<>(List.of(exe.toString(), "-o", out.toString()));
        for (Path input : inputFiles) command.add(input.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), new String(process.getInputStream().readAllBytes()));
        List<Tensor> outputs = new ArrayList<>();
        for (int i = 0; i < compiled.signature().outputs().size(); i++) {
            NamedTensor output = TensorProtos.read(out.resolve("output_" + i + ".pb"));
            assertEquals(compiled.signature().outputs().get(i).name(), output.name());
            outputs.add(output.tensor());
        }
        return outputs;
    }

    private static List<Tensor> runJit(CompiledModule compiled, List<Tensor> inputs) {
        try (HostModel jit = Compiler.jit(compiled)) {
            return jit.run(inputs);
        }
    }

    @Test
    void anOnnxConvModelRunsAsAnExecutableLikeTheJitAndTheReference() throws Exception {
        Path dir = Path.of(System.getProperty("byodt.onnxNodeDir"), "test_conv_with_strides_padding");
        List<Path> inputFiles = List.of(dir.resolve("test_data_set_0/input_0.pb"), dir.resolve("test_data_set_0/input_1.pb"));
        try (CompiledModule compiled = Compiler.compile(OnnxLoader.load(dir.resolve("model.onnx")), CompileOptions.host())) {
            List<Tensor> fromExecutable = runExecutable(compiled, inputFiles);
            List<Tensor> inputs = inputFiles.stream().map(f -> TensorProtos.read(f).tensor()).toList();
            float[] jit = runJit(compiled, inputs).getFirst().toFloatArray();
            float[] exe = fromExecutable.getFirst().toFloatArray();
            assertArrayEquals(jit, exe, 0f);
            float[] reference = TensorProtos.read(dir.resolve("test_data_set_0/output_0.pb")).tensor().toFloatArray();
            // Sums of a few small products: float32 reordering changes at most the last bits.
            for (int i = 0; i < reference.length; i++) {
                assertEquals(reference[i], exe[i], 1e-5f * Math.max(1f, Math.abs(reference[i])), "element " + i);
            }
        }
    }

    @Test
    void aProgramWithTemporariesUsesTheWorkspaceInTheExecutable() throws Exception {
        long m = 3, k = 7, n = 5;
        Buffer x = new Buffer("x", ScalarType.REAL, new long[] {m, k});
        Buffer w = new Buffer("w", ScalarType.REAL, new long[] {k, n});
        Buffer y = new Buffer("y", ScalarType.REAL, new long[] {m, n});
        Buffer out = new Buffer("out", ScalarType.REAL, new long[] {m, n});
        float[] weights = new float[(int) (k * n)];
        for (int i = 0; i < weights.length; i++) weights[i] = (i % 7 - 3) * 0.25f;
        KernelBuilder mm = new KernelBuilder("mm", "MatMul", List.of(x, w), List.of(y));
        mm.loops(new long[] {m, n}, i -> {
            Local acc = mm.local("acc", constant(ScalarType.ACC, 0));
            mm.loop(k, j -> mm.assign(acc, mac(mm.get(acc),
                mm.load(x, flatIndex(x.shape(), i[0], j)), mm.load(w, flatIndex(w.shape(), j, i[1])))));
            mm.store(y, flatIndex(y.shape(), i), cast(ScalarType.REAL, mm.get(acc)));
        });
        KernelBuilder relu = new KernelBuilder("relu", "Relu", List.of(y), List.of(out));
        relu.loop(m * n, i -> relu.store(out, i, max(relu.load(y, i), real(0))));
        TensorSpec xSpec = new TensorSpec("x", ElementType.FLOAT32, x.shape());
        TensorSpec outSpec = new TensorSpec("out", ElementType.FLOAT32, out.shape());
        Program program = new Program("workspace_test", List.of(mm.build(), relu.build()), List.of(x), List.of(xSpec),
            List.of(out), List.of(outSpec), Map.of(w, Tensor.ofFloats(w.shape(), weights)), List.of(y));

        float[] input = new float[(int) (m * k)];
        for (int i = 0; i < input.length; i++) input[i] = (float) Math.sin(i + 1);
        Path inputFile = work.resolve("x.pb");
        TensorProtos.write(inputFile, new NamedTensor("x", Tensor.ofFloats(x.shape(), input)));

        try (CompiledModule compiled = Compiler.compile(program, CompileOptions.host())) {
            assertTrue(compiled.signature().workspaceBytes() > 0, "the temporary y lives in the workspace");
            float[] exe = runExecutable(compiled, List.of(inputFile)).getFirst().toFloatArray();
            float[] jit = runJit(compiled, List.of(Tensor.ofFloats(x.shape(), input))).getFirst().toFloatArray();
            assertArrayEquals(jit, exe, 0f);
            assertTrue(java.util.stream.IntStream.range(0, exe.length).anyMatch(i -> exe[i] > 0), "not all clamped to 0");
        }
    }
}
