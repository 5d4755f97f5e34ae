package dev.byodt.compiler.lower;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.ops.FusedActivations;
import dev.byodt.compiler.ops.NodeArithmetic;
import dev.byodt.runtime.TensorSpec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * Turns a graph into a {@link Program}: one buffer per value, one kernel per node in graph order, and the
 * role of every buffer. Nodes whose outputs were all folded to constants need no kernel. Each graph
 * output gets a buffer of its own that one kernel writes: when the output is a constant, a graph input,
 * or a value already returned as another output, a copy kernel fills it, because the caller's output
 * memory must hold the result whatever the graph's shape.
 */
public final class GraphLowering {
    private final ValueBuffers buffers = new ValueBuffers();

    private GraphLowering() {}

    /** The program of the operators' reference loop nests: what the interpreter runs. */
    public static Program lower(Graph graph) {
        return new GraphLowering().run(graph, Optional.empty());
    }

    /** The program of the operators' tuned schedules, each for the vectors and arithmetic {@code arithmeticOf} says of its node. */
    public static Program lowerScheduled(Graph graph, Function<Node, NodeArithmetic> arithmeticOf) {
        return lowerScheduled(graph, arithmeticOf, (node, bufferOf) -> Optional.empty());
    }

    /** A node's own kernel in place of its operator's (a dot product in a block datatype), or empty. */
    public interface SpecialKernels {
        Optional<Kernel> lower(Node node, Function<Value, Buffer> bufferOf);
    }

    /** As {@link #lowerScheduled(Graph, Function)}, with the kernels {@code special} gives for the nodes it takes. */
    public static Program lowerScheduled(Graph graph, Function<Node, NodeArithmetic> arithmeticOf, SpecialKernels special) {
        return lowerScheduled(graph, arithmeticOf, special, (producer, activation) -> false);
    }

    /**
     * As {@link #lowerScheduled(Graph, Function, SpecialKernels)}, and where a node's one output is read by nothing
     * but one element-wise activation and is no graph output, the node's kernel computes the activation as it
     * stores ({@link FusedActivations}) and the activation has no kernel of its own, for the pairs {@code fuses}
     * accepts (those whose kernel computes in one datatype, the caller knows which).
     */
    public static Program lowerScheduled(Graph graph, Function<Node, NodeArithmetic> arithmeticOf, SpecialKernels special,
                                         BiPredicate<Node, Node> fuses) {
        return new GraphLowering().run(graph, Optional.of(arithmeticOf), special, fuses);
    }

    private Program run(Graph graph, Optional<Function<Node, NodeArithmetic>> arithmeticOf) {
        return run(graph, arithmeticOf, (node, bufferOf) -> Optional.empty(), (producer, activation) -> false);
    }

    private Program run(Graph graph, Optional<Function<Node, NodeArithmetic>> arithmeticOf, SpecialKernels special,
                        BiPredicate<Node, Node> fuses) {
        List<Buffer> inputs = graph.inputs().stream().map(buffers::bufferOf).toList();
        List<Kernel> kernels = new ArrayList<>();
        Map<Value, List<Node>> readers = readers(graph);
        Set<Node> fused = new HashSet<>();
        for (Node node : graph.nodes()) {
            if (fused.contains(node) || node.outputs().stream().allMatch(Value::isConstant)) continue;
            Optional<Kernel> own = special.lower(node, buffers::bufferOf);
            Optional<Node> activation = own.isPresent() || arithmeticOf.isEmpty() ? Optional.empty()
                : fusedActivation(node, graph, readers).filter(a -> fuses.test(node, a));
            if (activation.isPresent()) {
                kernels.add(NodeLowering.lowerFused(node, activation.get(), buffers::bufferOf, arithmeticOf.get().apply(node)));
                fused.add(activation.get());
            } else {
                kernels.add(own.orElseGet(() -> NodeLowering.lower(node, buffers::bufferOf, arithmeticOf)));
            }
        }
        Set<Buffer> written = new HashSet<>();
        kernels.forEach(k -> written.addAll(k.outputs()));

        List<Buffer> outputs = new ArrayList<>();
        for (Value v : graph.outputs()) {
            Buffer source = buffers.bufferOf(v);
            boolean needsCopy = !written.contains(source) || outputs.contains(source);
            if (needsCopy) {
                Buffer own = new Buffer(v.name(), source.elementType(), source.shape());
                kernels.add(copy(source, own));
                outputs.add(own);
            } else {
                outputs.add(source);
            }
        }

        return buffers.program(graph.name(), kernels, inputs, specs(graph.inputs()), outputs, specs(graph.outputs()));
    }

    /** The nodes that read each value, once for each input it is. */
    private static Map<Value, List<Node>> readers(Graph graph) {
        Map<Value, List<Node>> readers = new HashMap<>();
        for (Node node : graph.nodes()) {
            for (Value v : node.inputs()) if (v != null) readers.computeIfAbsent(v, key -> new ArrayList<>()).add(node);
        }
        return readers;
    }

    /** The activation {@code node}'s kernel can compute: the one reader of its one output, where that is no graph output. */
    private static Optional<Node> fusedActivation(Node node, Graph graph, Map<Value, List<Node>> readers) {
        if (node.outputs().size() != 1 || graph.outputs().contains(node.outputs().getFirst())) return Optional.empty();
        List<Node> only = readers.getOrDefault(node.outputs().getFirst(), List.of());
        if (only.size() != 1 || only.getFirst().input(0) != node.outputs().getFirst()) return Optional.empty();
        return Optional.of(only.getFirst()).filter(a -> FusedActivations.fits(node, a));
    }

    private static List<TensorSpec> specs(List<Value> values) {
        return values.stream().map(v -> new TensorSpec(v.name(), v.type().elementType(), v.type().shape())).toList();
    }

    /** out[i] = source[i] over the flat tensor. */
    private static Kernel copy(Buffer source, Buffer out) {
        KernelBuilder kb = new KernelBuilder("copy to " + out.name(), "Identity", List.of(source), List.of(out));
        kb.loop(out.size(), i -> kb.store(out, i, kb.load(source, i)));
        return kb.build();
    }
}
