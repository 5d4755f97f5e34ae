package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.aot.EmitKind;
import dev.byodt.compiler.aot.Emitter;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.emulation.Emulator;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.compiler.target.Target;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Stochastic rounding's random bits are a function of --seed, the operation and the element only: a model
 * rounding stochastically (a convolution in bfloat16 rounding every product and sum, so thousands of roundings a
 * call) gives the same outputs bit for bit on one thread and on two threads running calls at once, and on
 * riscv64 under qemu as on the host; another seed gives other outputs.
 */
class StochasticRoundingDeterminismTest {
    private static final Path CONV = Path.of(System.getProperty("byodt.onnxNodeDir"), "test_conv_with_strides_padding");
    private static final List<String> INPUT_FILES = List.of("test_data_set_0/input_0.pb", "test_data_set_0/input_1.pb");

    @TempDir
    Path work;

    private static CompileOptions stochastic(long seed) {
        return CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype("bfloat16")
            .withOptions(Map.of("rounding", "stochastic")).withSeed(seed));
    }

    /** The test case's input shapes with seeded random values, whose products and sums bfloat16 does not hold. */
    private static List<Tensor> inputs() {
        Random random = new Random(3);
        List<Tensor> inputs = new ArrayList<>();
        for (String file : INPUT_FILES) {
            Tensor shapeOf = TensorProtos.read(CONV.resolve(file)).tensor();
            float[] values = new float[shapeOf.toFloatArray().length];
            for (int i = 0; i < values.length; i++) values[i] = (float) random.nextGaussian();
            inputs.add(Tensor.ofFloats(shapeOf.shape(), values));
        }
        return inputs;
    }

    @Test
    void oneAndTwoThreadsGiveTheSameBitsAndTheSeedChangesThem() throws Exception {
        Graph graph = OnnxLoader.load(CONV.resolve("model.onnx"));
        try (CompiledModule module = Compiler.compile(graph, stochastic(1)); HostModel model = Compiler.jit(module)) {
            List<Tensor> inputs = CallItems.withFirstItem(model.inputs(), inputs(), 0);
            float[] alone = model.run(inputs).getFirst().toFloatArray();
            List<float[]> together = new ArrayList<>();
            try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
                List<Future<float[]>> calls = new ArrayList<>();
                for (int call = 0; call < 8; call++) calls.add(threads.submit(() -> model.run(inputs).getFirst().toFloatArray()));
                for (Future<float[]> call : calls) together.add(call.get());
            }
            for (float[] result : together) assertArrayEquals(alone, result);
            try (CompiledModule other = Compiler.compile(graph, stochastic(2)); HostModel otherModel = Compiler.jit(other)) {
                assertFalse(Arrays.equals(alone, otherModel.run(inputs).getFirst().toFloatArray()), "seeds 1 and 2 gave the same outputs");
            }
        }
    }

    @Test
    void riscv64UnderQemuGivesTheHostsBits() {
        Graph graph = OnnxLoader.load(CONV.resolve("model.onnx"));
        Target riscv64 = new Target("riscv64", "riscv64-unknown-linux-gnu", "generic-rv64", "+m,+a,+f,+d,+c");
        Path exe = work.resolve("conv-rv64");
        List<Tensor> inputs;
        try (CompiledModule compiled = Compiler.compile(graph, stochastic(1).withTarget(riscv64))) {
            new Emitter(BundledTools.locate(work.resolve("cache"))).emit(EmitKind.EXE, compiled, exe);
            inputs = CallItems.withFirstItem(compiled.signature().inputs(), inputs(), 0);
        }
        List<String> arguments = new ArrayList<>(List.of("-o", work.toString()));
        for (int i = 0; i < inputs.size(); i++) {
            Path file = work.resolve("input_" + i + ".pb");
            TensorProtos.write(file, new NamedTensor("input_" + i, inputs.get(i)));
            arguments.add(file.toString());
        }
        Emulator.forTarget(riscv64, Duration.ofSeconds(60)).run(exe, List.of(), arguments, work);
        float[] riscv = TensorProtos.read(work.resolve("output_0.pb")).tensor().toFloatArray();
        try (CompiledModule host = Compiler.compile(graph, stochastic(1)); HostModel jit = Compiler.jit(host)) {
            assertArrayEquals(jit.run(inputs).getFirst().toFloatArray(), riscv);
        }
    }
}
