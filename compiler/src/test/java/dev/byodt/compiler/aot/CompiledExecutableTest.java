package dev.byodt.compiler.aot;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.byodt.compiler.codegen.Programs.buffer;
import static dev.byodt.compiler.codegen.Programs.matmulProgram;
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
        Buffer x = buffer("x", 3, 7), w = buffer("w", 7, 5), y = buffer("y", 3, 5), out = buffer("out", 3, 5), sign = buffer("sign", 3, 5);
        float[] weights = new float[35];
        for (int i = 0; i < weights.length; i++) weights[i] = (i % 7 - 3) * 0.25f;
        Program program = matmulProgram(x, w, y, out, sign, Tensor.ofFloats(w.shape(), weights));
        float[] values = new float[21];
        for (int i = 0; i < values.length; i++) values[i] = (float) Math.sin(i + 1);
        Tensor input = Tensor.ofFloats(x.shape(), values);
        Path inputFile = work.resolve("x.pb");
        TensorProtos.write(inputFile, new NamedTensor("x", input));

        try (CompiledModule compiled = Compiler.compile(program, CompileOptions.host())) {
            assertTrue(compiled.signature().workspaceBytes() > 0, "the temporary y lives in the workspace");
            List<Tensor> exe = runExecutable(compiled, List.of(inputFile));
            List<Tensor> jit = runJit(compiled, List.of(input));
            List<Tensor> interpreted = GraphInterpreter.run(program, List.of(input));
            for (int o = 0; o < 2; o++) {
                assertArrayEquals(jit.get(o).toFloatArray(), exe.get(o).toFloatArray(), 0f);
                assertArrayEquals(interpreted.get(o).toFloatArray(), exe.get(o).toFloatArray(), 0f);
            }
        }
    }
}
