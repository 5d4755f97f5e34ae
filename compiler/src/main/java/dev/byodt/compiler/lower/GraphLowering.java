package dev.byodt.compiler.lower;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.ops.ActivationChain;
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
 * Turns a graph into a {@link Program}: one buffer per value, one kernel per node in graph order (a chain of
 * fused activations has one, where its last activation stands), and the role of every buffer. Nodes whose outputs were all folded to constants need no kernel. Each graph
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
     * As {@link #lowerScheduled(Graph, Function, SpecialKernels)}, and where element-wise nodes follow a node whose
     * kernel can compute them as it stores ({@link FusedActivations}), and the values between are read by nothing else
     * and are no graph outputs ({@link ActivationChains}), that kernel computes them and they have no kernels of their
     * own, for the pairs of producer and activation {@code fuses} accepts (those whose kernel computes in one
     * datatype, the caller knows which).
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
        Map<Node, Optional<Kernel>> specialKernels = new HashMap<>();
        for (Node node : graph.nodes()) {
            if (!node.outputs().stream().allMatch(Value::isConstant)) specialKernels.put(node, special.lower(node, buffers::bufferOf));
        }
        List<ActivationChain> chains = arithmeticOf.isEmpty() ? List.of()
            : ActivationChains.of(graph, node -> specialKernels.containsKey(node) && specialKernels.get(node).isEmpty(), fuses);
        Map<Node, ActivationChain> chainEndingAt = new HashMap<>();
        Set<Node> fused = new HashSet<>();
        for (ActivationChain chain : chains) {
            chainEndingAt.put(chain.activations().getLast(), chain);
            fused.add(chain.producer());
            fused.addAll(chain.activations());
        }
        List<Kernel> kernels = new ArrayList<>();
        for (Node node : graph.nodes()) {
            ActivationChain chain = chainEndingAt.get(node);
            if (chain != null) {
                kernels.add(NodeLowering.lowerFused(chain, buffers::bufferOf, arithmeticOf.get().apply(chain.producer())));
            } else if (specialKernels.containsKey(node) && !fused.contains(node)) {
                kernels.add(specialKernels.get(node).orElseGet(() -> NodeLowering.lower(node, buffers::bufferOf, arithmeticOf)));
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
