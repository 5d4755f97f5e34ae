package dev.byodt.compiler.graph;

import dev.byodt.runtime.ElementType;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Makes a graph's intermediate tensors observable (--per-layer): the same graph with every float tensor a
 * node computes at run time appended to its outputs, in graph order. Like every real-valued output it
 * leaves the compiled model as float32, whatever datatype it was computed in, so two compilations of the
 * same graph in different datatypes expose the same tensors, comparable element by element.
 * Constants (weights, folded values), integer tensors (shapes, indices) and tensors already among the
 * outputs are not added.
 */
public final class IntermediateOutputs {
    private IntermediateOutputs() {}

    public static Graph expose(Graph graph) {
        List<Value> outputs = new ArrayList<>(graph.outputs());
        outputs.addAll(intermediates(graph));
        return new Graph(graph.name(), graph.inputs(), outputs, graph.nodes());
    }

    /** The tensors {@link #expose} adds, in graph order. */
    public static List<Value> intermediates(Graph graph) {
        Set<Value> alreadyOutputs = Set.copyOf(graph.outputs());
        Set<Value> found = new LinkedHashSet<>();
        for (Node node : graph.nodes()) {
            for (Value v : node.outputs()) {
                boolean runtimeFloat = !v.isConstant() && v.type() != null && v.type().elementType() == ElementType.FLOAT32;
                if (runtimeFloat && !alreadyOutputs.contains(v)) found.add(v);
            }
        }
        return List.copyOf(found);
    }
}
