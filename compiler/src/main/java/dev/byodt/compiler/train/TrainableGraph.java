package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A graph whose trainable weights are run-time values instead of constants: each becomes a tensor the
 * caller passes in (its initial value kept aside), and values the importer folded from weights are
 * computed again, since they change with the weights. BatchNormalization's running mean and variance become
 * run-time inputs too, as statistics: training updates them from the batches, not from the loss's gradient.
 *
 * @param graph      the graph, its inputs being the original inputs, the weights, then the statistics
 * @param weights    each weight's value in {@code graph}, with its initial contents, in graph order
 * @param statistics each running statistic's value in {@code graph}, with its initial contents, in graph order
 */
public record TrainableGraph(Graph graph, Map<Value, Tensor> weights, Map<Value, Tensor> statistics) {
    /** A graph without running statistics. */
    public TrainableGraph(Graph graph, Map<Value, Tensor> weights) {
        this(graph, weights, Map.of());
    }

    /**
     * The graph with the float32 constants named in {@code trainable} turned into run-time inputs as weights, and
     * those BatchNormalization reads as its running mean and variance as statistics, also when the importer folded
     * them from other initializers (PyTorch's exporter makes a fresh BatchNorm's zero mean and unit variance
     * Identity copies of its equal bias and scale). Dropout's ratio, a float but a setting, stays a constant.
     */
    public static TrainableGraph of(Graph graph, Set<String> trainable) {
        Set<Value> runningStatistics = new HashSet<>();
        Set<Value> settings = new HashSet<>();
        for (Node node : graph.nodes()) {
            if (node.opType().equals("BatchNormalization")) runningStatistics.addAll(node.inputs().subList(3, node.inputCount()));
            if (node.opType().equals("Dropout") && node.input(1) != null) settings.add(node.input(1));
        }
        Map<Value, Value> replaced = new HashMap<>();
        Map<Value, Value> runTime = new HashMap<>();
        Map<Value, Tensor> weights = new LinkedHashMap<>();
        Map<Value, Tensor> statistics = new LinkedHashMap<>();
        List<Node> nodes = new ArrayList<>();
        for (Node node : graph.nodes()) {
            List<Value> inputs = new ArrayList<>();
            boolean changed = false;
            for (Value v : node.inputs()) {
                Value in = v;
                boolean real = v != null && v.isConstant() && v.constant().type() == ElementType.FLOAT32;
                if (real && runningStatistics.contains(v)) {
                    in = runTimeInput(v, runTime, statistics);
                } else if (real && trainable.contains(v.name()) && !settings.contains(v)) {
                    in = runTimeInput(v, runTime, weights);
                } else if (v != null) {
                    in = replaced.getOrDefault(v, v);
                }
                changed |= in != v;
                inputs.add(in);
            }
            List<Value> outputs = node.outputs();
            if (changed && outputs.stream().anyMatch(Value::isConstant)) {
                outputs = outputs.stream().map(old -> {
                    Value computed = new Value(old.name());
                    computed.setType(old.type());
                    replaced.put(old, computed);
                    return computed;
                }).toList();
            }
            nodes.add(changed ? new Node(node.name(), node.opType(), node.domain(), node.opsetVersion(), inputs, outputs,
                node.attributes()) : node);
        }
        if (weights.isEmpty()) throw new ByodtException("the model has no real-valued weights to train");
        List<Value> inputs = new ArrayList<>(graph.inputs());
        inputs.addAll(weights.keySet());
        inputs.addAll(statistics.keySet());
        List<Value> outputs = graph.outputs().stream().map(v -> replaced.getOrDefault(v, v)).toList();
        return new TrainableGraph(new Graph(graph.name(), inputs, outputs, nodes), weights, statistics);
    }

    /** The run-time input that takes the place of constant {@code v}, made once and listed in {@code kind}. */
    private static Value runTimeInput(Value v, Map<Value, Value> runTime, Map<Value, Tensor> kind) {
        return runTime.computeIfAbsent(v, old -> {
            Value input = new Value(old.name());
            input.setType(old.type());
            kind.put(input, old.constant());
            return input;
        });
    }
}
