package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** A graph under construction: typed inputs, constants of grid values, nodes whose outputs are typed as inferred. */
public final class Net {
    private final Random random = new Random(11);
    private final List<Value> inputs = new ArrayList<>();
    final List<Node> nodes = new ArrayList<>();

    public Value input(String name, long... shape) {
        Value v = typed(name, shape);
        inputs.add(v);
        return v;
    }

    public Value constant(String name, long... shape) {
        Value v = typed(name, shape);
        v.setConstant(ScheduleCases.gridValues(shape, random));
        return v;
    }

    public Value constant(String name, Tensor value) {
        Value v = typed(name, value.shape());
        v.setConstant(value);
        return v;
    }

    public Value node(String op, Map<String, Attribute> attributes, Value... operands) {
        Value out = new Value(op.toLowerCase() + nodes.size());
        Node node = new Node("n" + nodes.size() + "_" + op, op, "", 13, Arrays.asList(operands), List.of(out), attributes);
        out.setType(Operators.lookup(op).inferTypes(node).getFirst());
        nodes.add(node);
        return out;
    }

    public Value node(String op, Value... operands) { return node(op, Map.of(), operands); }

    public Graph graph(Value... outputs) { return new Graph("net", inputs, List.of(outputs), nodes); }

    private static Value typed(String name, long[] shape) {
        Value v = new Value(name);
        v.setType(new TensorType(ElementType.FLOAT32, shape));
        return v;
    }
}
