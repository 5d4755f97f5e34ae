package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.byodt.compiler.train.CloseFloats.assertClose;

/**
 * Each operator's gradient against PyTorch autograd in float32: one node whose real-valued inputs are all
 * differentiated, a random output gradient, and the gradients PyTorch computed for them
 * (scripts/generate_gradient_references.py).
 * The backward kernels run twice, compiled to native code and in the interpreter.
 */
class GradientsAgainstPyTorchTest {
    private static final Path CASES = Path.of("src/test/resources/gradients");
    /** Float32 sums in another order than PyTorch's differ by a few units in the last place of their terms. */
    private static final double TOLERANCE = 1e-5;

    @ParameterizedTest
    @ValueSource(strings = {"gemm", "gemm_transposed_a", "matmul", "conv", "conv_dilated", "conv_lenet", "maxpool",
        "maxpool_overlapping", "averagepool", "averagepool_padded", "globalaveragepool", "relu", "leakyrelu", "tanh", "sigmoid", "add", "sub",
        "mul", "flatten", "reshape", "softmax", "logsoftmax", "batchnormalization", "batchnormalization_1d"})
    void gradientsMatchPyTorch(String name) {
        Path folder = CASES.resolve(name);
        Graph loaded = OnnxLoader.load(folder.resolve("model.onnx"));
        Map<Value, Tensor> values = new LinkedHashMap<>();
        for (Value input : loaded.inputs()) values.put(input, TensorProtos.read(folder.resolve(input.name() + ".pb")).tensor());
        TrainableGraph graph = new TrainableGraph(loaded, values);
        Program program = GradientProgram.of(graph);
        List<Tensor> inputs = new ArrayList<>(graph.weights().values());
        inputs.add(TensorProtos.read(folder.resolve("dY.pb")).tensor());
        List<Tensor> interpreted = GraphInterpreter.run(program, inputs);
        List<Tensor> compiled;
        try (CompiledModule module = Compiler.compile(program, CompileOptions.host()); HostModel model = Compiler.jit(module)) {
            compiled = model.run(inputs);
        }
        List<Value> weights = new ArrayList<>(graph.weights().keySet());
        for (int i = 0; i < weights.size(); i++) {
            float[] expected = TensorProtos.read(folder.resolve("grad_" + weights.get(i).name() + ".pb")).tensor().toFloatArray();
            assertClose(expected, interpreted.get(i).toFloatArray(), TOLERANCE, name + " interpreted d" + weights.get(i).name());
            assertClose(expected, compiled.get(i).toFloatArray(), TOLERANCE, name + " compiled d" + weights.get(i).name());
        }
    }
}
