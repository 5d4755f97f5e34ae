package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.ops.NodeArithmetic;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The gradients of a graph's weights for a given gradient of its output, as a program: inputs are the graph's
 * inputs, its weights and the output's gradient ("d" + output name); outputs are the weights' gradients
 * ("d" + weight name), in weight order. What the gradient checks against PyTorch run, compiled or interpreted,
 * in the reference nests, and what the tuned schedules are checked against them with.
 */
public final class GradientProgram {
    private GradientProgram() {}

    /** The program of the reference nests, forward and backward. */
    public static Program of(TrainableGraph trainable) {
        return of(trainable, Optional.empty());
    }

    /** With {@code arithmeticOf}, the program of the tuned schedules for vectors of that many of each node's elements. */
    public static Program of(TrainableGraph trainable, Optional<Function<Node, NodeArithmetic>> arithmeticOf) {
        ProgramAssembly assembly = new ProgramAssembly();
        Graph graph = trainable.graph();
        List<Kernel> kernels = new ArrayList<>(assembly.forward(graph, arithmeticOf));
        Value output = graph.outputs().getFirst();
        Buffer outputGradient = new Buffer("d" + output.name(), ScalarType.REAL, output.type().shape());
        List<Value> weights = new ArrayList<>(trainable.weights().keySet());
        Backpropagation.Result backward = Backpropagation.of(graph.nodes(), Map.of(output, outputGradient), weights,
            assembly::bufferOf, arithmeticOf);
        kernels.addAll(backward.kernels());
        List<Buffer> inputs = new ArrayList<>(graph.inputs().stream().map(assembly::bufferOf).toList());
        inputs.add(outputGradient);
        List<Buffer> outputs = weights.stream().map(w -> backward.gradients().get(w)).toList();
        return assembly.program(graph.name() + " gradients", kernels, inputs, outputs);
    }
}
