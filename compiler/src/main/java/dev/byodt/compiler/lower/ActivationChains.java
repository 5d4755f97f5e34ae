package dev.byodt.compiler.lower;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.ops.ActivationChain;
import dev.byodt.compiler.ops.FusedActivations;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * The chains of a graph whose activations the producer's kernel computes ({@link FusedActivations}): from each node
 * in graph order that can produce one and is in no chain yet, the longest chain after which every value it computes
 * but the last is read by nothing outside it and is no graph output, so that the last is the only one anything needs
 * in memory. An activation may read tensors computed after the producer: the chain's kernel runs where its last
 * activation stood, when they are all there.
 */
final class ActivationChains {
    private ActivationChains() {}

    /**
     * The chains of nodes {@code lowered} accepts (those computed at run time by their operators' kernels), each
     * activation one that {@code fuses} accepts after that producer (the caller knows which datatypes may share a
     * kernel), no node in two.
     */
    static List<ActivationChain> of(Graph graph, Predicate<Node> lowered, BiPredicate<Node, Node> fuses) {
        Map<Value, Set<Node>> readers = new HashMap<>();
        for (Node node : graph.nodes()) {
            for (Value v : node.inputs()) if (v != null) readers.computeIfAbsent(v, key -> new LinkedHashSet<>()).add(node);
        }
        Set<Value> graphOutputs = Set.copyOf(graph.outputs());
        Set<Node> taken = new HashSet<>();
        List<ActivationChain> chains = new ArrayList<>();
        List<Node> nodes = graph.nodes();
        for (int p = 0; p < nodes.size(); p++) {
            Node producer = nodes.get(p);
            if (taken.contains(producer) || !lowered.test(producer) || !FusedActivations.canProduce(producer)) continue;
            Predicate<Node> joins = next -> !taken.contains(next) && lowered.test(next) && fuses.test(producer, next);
            longest(nodes, p, readers, graphOutputs, joins).ifPresent(chain -> {
                chains.add(chain);
                taken.add(producer);
                taken.addAll(chain.activations());
            });
        }
        return chains;
    }

    /**
     * The longest chain after {@code nodes[p]}: its readers join in graph order while they can; the first reader of a
     * value computed so far that cannot ends the search, since that value is then needed in memory.
     */
    private static Optional<ActivationChain> longest(List<Node> nodes, int p, Map<Value, Set<Node>> readers, Set<Value> graphOutputs,
                                                     Predicate<Node> joins) {
        Node producer = nodes.get(p);
        long[] shape = producer.output(0).type().shape();
        Set<Value> computed = new HashSet<>(List.of(producer.output(0)));
        Set<Node> pending = new HashSet<>(readers.getOrDefault(producer.output(0), Set.of()));
        List<Node> activations = new ArrayList<>();
        Optional<ActivationChain> longest = Optional.empty();
        for (int i = p + 1; i < nodes.size() && !pending.isEmpty(); i++) {
            Node next = nodes.get(i);
            if (!pending.remove(next)) continue;
            if (!joins.test(next) || !FusedActivations.canFollow(next, computed, shape)) break;
            activations.add(next);
            computed.add(next.output(0));
            pending.addAll(readers.getOrDefault(next.output(0), Set.of()));
            if (closed(computed, next.output(0), activations, readers, graphOutputs)) {
                longest = Optional.of(new ActivationChain(producer, activations));
            }
        }
        return longest;
    }

    /** Whether every value computed but {@code last} is read by the activations alone and is no graph output. */
    private static boolean closed(Set<Value> computed, Value last, List<Node> activations, Map<Value, Set<Node>> readers,
                                  Set<Value> graphOutputs) {
        Set<Node> inChain = Set.copyOf(activations);
        return computed.stream().filter(v -> v != last)
            .allMatch(v -> !graphOutputs.contains(v) && inChain.containsAll(readers.getOrDefault(v, Set.of())));
    }
}
