package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A node and the element-wise nodes after it that its kernel computes as it stores its output
 * ({@link FusedActivations}), in graph order: each activation reads values the chain computed before it (the
 * producer's output, an earlier activation's) and its operands, tensors computed elsewhere. Only the last
 * activation's output is written.
 */
public record ActivationChain(Node producer, List<Node> activations) {
    public ActivationChain {
        if (activations.isEmpty()) throw new IllegalArgumentException(producer.describe() + " has no activations to compute");
        activations = List.copyOf(activations);
    }

    /** The one tensor the chain writes. */
    public Value output() { return activations.getLast().output(0); }

    /** The producer's output and every activation's. */
    Set<Value> computed() {
        Set<Value> computed = new HashSet<>(List.of(producer.output(0)));
        activations.forEach(a -> computed.add(a.output(0)));
        return computed;
    }

    /** The inputs of the activations the chain does not compute, each once, in order of first use. */
    public List<Value> operands() {
        Set<Value> computed = computed();
        Set<Value> operands = new LinkedHashSet<>();
        for (Node a : activations) {
            for (Value v : a.inputs()) if (v != null && !computed.contains(v)) operands.add(v);
        }
        return new ArrayList<>(operands);
    }
}
