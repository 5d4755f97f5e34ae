package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The gradients of a graph's weights for a given gradient of its output, as a program: inputs are the graph's
 * inputs, its weights and the output's gradient ("d" + output name); outputs are the weights' gradients
 * ("d" + weight name), in weight order. What the gradient checks against PyTorch run, compiled or interpreted.
 */
public final class GradientProgram {
    private GradientProgram() {}

    public static Program of(TrainableGraph trainable) {
        ProgramAssembly assembly = new ProgramAssembly();
        Graph graph = trainable.graph();
        List<Kernel> kernels = new ArrayList<>(assembly.forward(graph));
        Value output = graph.outputs().getFirst();
        Buffer outputGradient = new Buffer("d" + output.name(), ScalarType.REAL, output.type().shape());
        List<Value> weights = new ArrayList<>(trainable.weights().keySet());
        Backpropagation.Result backward = Backpropagation.of(graph.nodes(), Map.of(output, outputGradient), weights,
            assembly::bufferOf);
        kernels.addAll(backward.kernels());
        List<Buffer> inputs = new ArrayList<>(graph.inputs().stream().map(assembly::bufferOf).toList());
        inputs.add(outputGradient);
        List<Buffer> outputs = weights.stream().map(w -> backward.gradients().get(w)).toList();
        return assembly.program(graph.name() + " gradients", kernels, inputs, outputs);
    }
}
