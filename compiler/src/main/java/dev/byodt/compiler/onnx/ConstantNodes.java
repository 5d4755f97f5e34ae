package dev.byodt.compiler.onnx;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Node;
import dev.byodt.runtime.Tensor;

import java.util.Map;

/** The value of an ONNX Constant node, which becomes a constant Value instead of a node. */
final class ConstantNodes {
    static final String OP_TYPE = "Constant";

    private ConstantNodes() {}

    static Tensor valueOf(Node node) {
        if (node.attributes().size() != 1) {
            throw node.error("has " + node.attributes().size() + " attributes; a Constant has exactly one, its value");
        }
        Map.Entry<String, Attribute> entry = node.attributes().entrySet().iterator().next();
        Tensor value = switch (entry.getKey()) {
            case "value" -> entry.getValue() instanceof Attribute.TensorAttr t ? t.value() : null;
            case "value_float" -> entry.getValue() instanceof Attribute.FloatAttr f
                ? Tensor.ofFloats(new long[] {}, new float[] {f.value()}) : null;
            case "value_floats" -> entry.getValue() instanceof Attribute.FloatsAttr f
                ? Tensor.ofFloats(new long[] {f.values().length}, f.values()) : null;
            case "value_int" -> entry.getValue() instanceof Attribute.IntAttr i
                ? Tensor.ofLongs(new long[] {}, new long[] {i.value()}) : null;
            case "value_ints" -> entry.getValue() instanceof Attribute.IntsAttr i
                ? Tensor.ofLongs(new long[] {i.values().length}, i.values()) : null;
            default -> throw node.error("attribute '" + entry.getKey() + "' is not supported (byodt reads value, "
                + "value_float, value_floats, value_int and value_ints)");
        };
        if (value == null) throw node.error("attribute '" + entry.getKey() + "' has the wrong kind");
        return value;
    }
}
