package dev.byodt.compiler.graph;

import java.util.List;

/**
 * A model's computation: nodes in topological order between the graph's run-time inputs and its outputs.
 * Weights are Values with constants; they are not among the inputs even when an IR-3 model lists them there.
 */
public record Graph(String name, List<Value> inputs, List<Value> outputs, List<Node> nodes) {}
