package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Interpreter;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.NodeLowering;
import dev.byodt.runtime.Tensor;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Runs a graph node by node in the kernel interpreter: shape inference, lowering through NodeLowering,
 * then the kernel on the node's tensors. A kernel that loads only constants has its outputs made
 * constants, as the loader folds them, so shape subgraphs feed Reshape and Slice as they would in byodt.
 */
final class GraphRunner {
    private final Map<Value, Buffer> buffers = new HashMap<>();
    private final Map<Value, Tensor> tensors = new HashMap<>();

    /**
     * @param bindsAtCompileTime graph inputs whose values are bound as constants before compiling, as byodt
     *                           must do for inputs that decide shapes (Reshape's shape fed as a graph input)
     */
    static List<Tensor> run(Graph graph, List<Tensor> inputs, Predicate<Value> bindsAtCompileTime) {
        return new GraphRunner().execute(graph, inputs, bindsAtCompileTime);
    }

    private List<Tensor> execute(Graph graph, List<Tensor> inputs, Predicate<Value> bindsAtCompileTime) {
        for (int i = 0; i < graph.inputs().size(); i++) {
            Value v = graph.inputs().get(i);
            if (bindsAtCompileTime.test(v)) {
                v.setConstant(inputs.get(i));
            } else {
                v.setType(new TensorType(inputs.get(i).type(), inputs.get(i).shape()));
                tensors.put(v, inputs.get(i));
            }
        }
        for (Node node : graph.nodes()) {
            Operator op = Operators.lookup(node.opType());
            List<TensorType> types = op.inferTypes(node);
            if (types.size() != node.outputs().size()) {
                throw new AssertionError(node + " inferred " + types.size() + " output types for " + node.outputs().size() + " outputs");
            }
            for (int k = 0; k < types.size(); k++) node.output(k).setType(types.get(k));
            Kernel kernel = NodeLowering.lower(node, this::bufferOf);
            List<Tensor> results = Interpreter.run(kernel, node.inputs().stream().map(this::tensorOf).toList());
            boolean folds = kernel.loadedBuffers().stream().allMatch(b -> isConstantBuffer(node, b));
            for (int k = 0; k < results.size(); k++) {
                if (folds) node.output(k).setConstant(results.get(k));
                else tensors.put(node.output(k), results.get(k));
            }
        }
        return graph.outputs().stream().map(this::tensorOf).toList();
    }

    private Buffer bufferOf(Value v) {
        return buffers.computeIfAbsent(v, x -> new Buffer(x.name(), ScalarType.of(x.type().elementType()), x.type().shape()));
    }

    private Tensor tensorOf(Value v) {
        if (v == null) return null;
        return v.isConstant() ? v.constant() : tensors.get(v);
    }

    private boolean isConstantBuffer(Node node, Buffer b) {
        return node.inputs().stream().anyMatch(v -> v != null && v.isConstant() && buffers.get(v) == b);
    }
}
