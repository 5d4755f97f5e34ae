package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.NodeLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.lower.ValueBuffers;
import dev.byodt.compiler.ops.NodeArithmetic;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.TensorSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Puts a program together from a graph's forward kernels and kernels of its own (loss, gradients, updates), over
 * the graph values' buffers ({@link ValueBuffers}).
 */
final class ProgramAssembly {
    private final ValueBuffers buffers = new ValueBuffers();

    /**
     * The graph's nodes as loop nests, those whose outputs were all folded to constants left out: each in its
     * operator's schedule tuned for vectors of {@code arithmeticOf} its node's elements, or without, its reference nest.
     */
    List<Kernel> forward(Graph graph, Optional<Function<Node, NodeArithmetic>> arithmeticOf) {
        List<Kernel> kernels = new ArrayList<>();
        for (Node node : graph.nodes()) {
            if (node.outputs().stream().allMatch(Value::isConstant)) continue;
            kernels.add(NodeLowering.lower(node, this::bufferOf, arithmeticOf));
        }
        return kernels;
    }

    Buffer bufferOf(Value v) {
        return buffers.bufferOf(v);
    }

    /** The program with every buffer's role: callers' inputs and outputs, constants, and temporaries. */
    Program program(String name, List<Kernel> kernels, List<Buffer> inputs, List<Buffer> outputs) {
        return buffers.program(name, kernels, inputs, specs(inputs), outputs, specs(outputs));
    }

    private static List<TensorSpec> specs(List<Buffer> buffers) {
        return buffers.stream().map(b -> new TensorSpec(b.name(),
            b.elementType() == ScalarType.I64 ? ElementType.INT64 : ElementType.FLOAT32, b.shape())).toList();
    }
}
