package dev.byodt.compiler.graph;

import dev.byodt.runtime.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * A model's computation: nodes in topological order between the graph's run-time inputs and its outputs.
 * Weights are Values with constants; they are not among the inputs even when an IR-3 model lists them there.
 */
public record Graph(String name, List<Value> inputs, List<Value> outputs, List<Node> nodes) {
    /**
     * The outputs a compiled model computed (in their {@linkplain dev.byodt.runtime.ElementType#computed()
     * computed} types), each converted to the element type the model declares for it: what callers get back.
     */
    public List<Tensor> declaredOutputs(List<Tensor> computed) {
        List<Tensor> declared = new ArrayList<>();
        for (int i = 0; i < computed.size(); i++) declared.add(computed.get(i).convertedTo(outputs.get(i).declaredType()));
        return declared;
    }
}
