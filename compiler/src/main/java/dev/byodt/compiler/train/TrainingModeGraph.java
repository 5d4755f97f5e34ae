package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.ElementType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The forward pass of a training step, which differs from inference in two operators: BatchNormalization
 * normalizes by the batch's own mean and variance (as training_mode=1 does, and PyTorch's BatchNorm in
 * train()), and Dropout becomes a Mul by a mask input that the caller draws for each step (zero where an
 * element is dropped, 1 / (1 - ratio) where it is kept), so that Mul's gradient passes dY back through the same
 * mask. The inference graph stays as it was, for predictions and the written model.
 *
 * @param graph               the training-mode graph: the original inputs, then one mask input per Dropout
 * @param batchNormalizations the BatchNormalization nodes of {@code graph}, whose running statistics a step updates
 * @param dropouts            each Dropout's mask input and ratio, in graph order
 */
record TrainingModeGraph(Graph graph, List<Node> batchNormalizations, List<Dropout> dropouts) {
    /** The input named "dropout mask of NODE" that Dropout node NODE multiplies by; the fraction it drops. */
    record Dropout(Value mask, double ratio) {}

    static final String MASK = "dropout mask of ";

    static TrainingModeGraph of(Graph inference) {
        List<Node> nodes = new ArrayList<>();
        List<Node> batchNormalizations = new ArrayList<>();
        List<Dropout> dropouts = new ArrayList<>();
        for (Node node : inference.nodes()) {
            switch (node.opType()) {
                case "BatchNormalization" -> {
                    Node training = batchStatistics(inference, node);
                    batchNormalizations.add(training);
                    nodes.add(training);
                }
                case "Dropout" -> {
                    requireUnused(inference, node, "mask");
                    Value x = node.input(0);
                    Value mask = new Value(MASK + node.name());
                    mask.setType(new TensorType(ElementType.FLOAT32, x.type().shape()));
                    dropouts.add(new Dropout(mask, ratio(node)));
                    nodes.add(new Node(node.name(), "Mul", "", 13, List.of(x, mask), List.of(node.output(0)), Map.of()));
                }
                default -> nodes.add(node);
            }
        }
        List<Value> inputs = new ArrayList<>(inference.inputs());
        dropouts.forEach(d -> inputs.add(d.mask()));
        return new TrainingModeGraph(new Graph(inference.name(), inputs, inference.outputs(), nodes), batchNormalizations, dropouts);
    }

    /** The node in training mode with Y as its only output: a step updates the running statistics as PyTorch does. */
    private static Node batchStatistics(Graph graph, Node node) {
        if (node.intAttr("training_mode", 0) == 1) {
            throw node.error("is in training mode (training_mode=1), and the trained model would keep normalizing by its "
                + "batches: export the model in inference mode (from PyTorch's eval(), with TrainingMode.PRESERVE)");
        }
        if (node.opsetVersion() <= 8 && node.intAttr("spatial", 1) == 0) {
            throw node.error("spatial=0 (statistics per element) has no training mode");
        }
        requireUnused(graph, node, "running and saved statistics");
        long[] x = node.input(0).type().shape();
        long perChannel = Arrays.stream(x, 2, x.length).reduce(x[0], Math::multiplyExact);
        if (perChannel < 2) {
            throw node.error("training needs more than one value per channel to take a variance from; the batch has " + perChannel);
        }
        Map<String, Attribute> attributes = new HashMap<>();
        attributes.put("epsilon", new Attribute.FloatAttr(node.floatAttr("epsilon", 1e-5f)));
        attributes.put("momentum", new Attribute.FloatAttr(node.floatAttr("momentum", 0.9f)));
        attributes.put("training_mode", new Attribute.IntAttr(1));
        return new Node(node.name(), node.opType(), node.domain(), 15, node.inputs(), List.of(node.output(0)), attributes);
    }

    /** Dropout's ratio: an input from opset 12 (a constant), an attribute before; 0.5 by default. */
    private static double ratio(Node node) {
        double ratio;
        if (node.opsetVersion() >= 12) {
            Value r = node.input(1);
            if (r != null && !r.isConstant()) throw node.error("ratio '" + r.name() + "' must be a constant to train");
            ratio = r == null ? 0.5 : r.constant().getDouble(0);
        } else {
            ratio = node.floatAttr("ratio", 0.5f);
        }
        if (!(ratio >= 0 && ratio < 1)) throw node.error("ratio " + ratio + " is not in [0, 1)");
        return ratio;
    }

    /** A training step does not compute a node's outputs past Y: nothing may read them. */
    private static void requireUnused(Graph graph, Node node, String what) {
        List<Value> extra = node.outputs().subList(1, node.outputs().size());
        boolean read = graph.outputs().stream().anyMatch(extra::contains)
            || graph.nodes().stream().anyMatch(n -> n.inputs().stream().anyMatch(v -> v != null && extra.contains(v)));
        if (read) throw node.error("its " + what + " output is read, which training does not compute");
    }
}
