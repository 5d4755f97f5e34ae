package dev.byodt.compiler.lower;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.ops.ActivationChain;
import dev.byodt.compiler.ops.FusedActivations;
import dev.byodt.compiler.ops.NodeArithmetic;
import dev.byodt.compiler.ops.Operator;
import dev.byodt.compiler.ops.Operators;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Turns one node into its kernel, given how the graph's values map to buffers: the operator's reference loop
 * nest, or its schedule tuned for vectors of a number of lanes.
 */
public final class NodeLowering {
    private NodeLowering() {}

    /**
     * @param bufferOf the buffer holding each value; the same value must always give the same buffer, so
     *                 that kernels of one graph share their tensors
     */
    public static Kernel lower(Node node, Function<Value, Buffer> bufferOf) {
        return lower(node, bufferOf, Optional.empty());
    }

    /**
     * The kernel in the operator's schedule for the vectors and arithmetic {@code arithmeticOf} says for the
     * node, or its reference nest without.
     */
    public static Kernel lower(Node node, Function<Value, Buffer> bufferOf, Optional<Function<Node, NodeArithmetic>> arithmeticOf) {
        Operator op = Operators.lookup(node.opType());
        if (op == null) throw node.error("operator " + node.opType() + " is not supported");
        List<Buffer> inputs = inputBuffers(node, bufferOf);
        List<Buffer> outputs = node.outputs().stream().map(bufferOf).toList();
        KernelBuilder kb = new KernelBuilder(node.name(), node.opType(), inputs, outputs);
        if (arithmeticOf.isPresent()) op.lowerScheduled(node, kb, arithmeticOf.get().apply(node));
        else op.lower(node, kb);
        return kb.build();
    }

    /**
     * The kernel of the chain's producer in its tuned schedule with the chain's activations computed as it stores
     * ({@link FusedActivations}): the producer's inputs then the activations' operands, the chain's output.
     */
    public static Kernel lowerFused(ActivationChain chain, Function<Value, Buffer> bufferOf, NodeArithmetic arithmetic) {
        Node producer = chain.producer();
        KernelBuilder kb = new KernelBuilder(producer.name(), producer.opType(), inputBuffers(producer, bufferOf),
            List.of(bufferOf.apply(chain.output())));
        FusedActivations.lower(chain, kb, arithmetic, bufferOf);
        Kernel k = kb.build();
        List<Buffer> inputs = new ArrayList<>(k.inputs());
        chain.operands().forEach(v -> inputs.add(bufferOf.apply(v)));
        return new Kernel(k.name(), k.opType(), inputs, k.outputs(), k.scratch(), k.constants(), k.body());
    }

    /** The buffer of each input of the node, null for an input it omits. */
    private static List<Buffer> inputBuffers(Node node, Function<Value, Buffer> bufferOf) {
        List<Buffer> inputs = new ArrayList<>();
        for (Value v : node.inputs()) inputs.add(v == null ? null : bufferOf.apply(v));
        return inputs;
    }
}
