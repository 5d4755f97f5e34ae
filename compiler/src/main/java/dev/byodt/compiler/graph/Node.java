package dev.byodt.compiler.graph;

import dev.byodt.runtime.ByodtException;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One operator application. Inputs that ONNX marks as omitted (an empty name) are null. The opset
 * version is the one the model imports for the node's domain, which selects the operator's semantics.
 */
public record Node(String name, String opType, String domain, int opsetVersion, List<Value> inputs,
                   List<Value> outputs, Map<String, Attribute> attributes) {

    /** "Conv node 'conv1'": how every error about a node starts. */
    public String describe() { return opType + " node '" + name + "'"; }

    public ByodtException error(String problem) { return new ByodtException(describe() + ": " + problem); }

    public int inputCount() { return inputs.size(); }

    /** Input i, or null when it is absent or omitted. */
    public Value input(int i) { return i < inputs.size() ? inputs.get(i) : null; }

    public Value output(int i) { return outputs.get(i); }

    public boolean hasAttribute(String name) { return attributes.containsKey(name); }

    public long intAttr(String name, long fallback) {
        Attribute a = attributes.get(name);
        if (a == null) return fallback;
        if (a instanceof Attribute.IntAttr i) return i.value();
        throw error("attribute '" + name + "' should be an int");
    }

    public float floatAttr(String name, float fallback) {
        Attribute a = attributes.get(name);
        if (a == null) return fallback;
        if (a instanceof Attribute.FloatAttr f) return f.value();
        if (a instanceof Attribute.IntAttr i) return i.value();
        throw error("attribute '" + name + "' should be a float");
    }

    public String stringAttr(String name, String fallback) {
        Attribute a = attributes.get(name);
        if (a == null) return fallback;
        if (a instanceof Attribute.StringAttr s) return s.value();
        throw error("attribute '" + name + "' should be a string");
    }

    /** An ints attribute, or the fallback (which may be null) when absent. */
    public long[] intsAttr(String name, long[] fallback) {
        Attribute a = attributes.get(name);
        if (a == null) return fallback;
        if (a instanceof Attribute.IntsAttr i) return i.values().clone();
        throw error("attribute '" + name + "' should be a list of ints");
    }

    public float[] floatsAttr(String name, float[] fallback) {
        Attribute a = attributes.get(name);
        if (a == null) return fallback;
        if (a instanceof Attribute.FloatsAttr f) return f.values().clone();
        throw error("attribute '" + name + "' should be a list of floats");
    }

    /** An error naming the attribute and the value the operator cannot handle. */
    public ByodtException badAttribute(String attribute, Object value, String expected) {
        String shown = value instanceof long[] l ? Arrays.toString(l) : String.valueOf(value);
        return error("attribute " + attribute + "=" + shown + " is not supported (" + expected + ")");
    }

    @Override
    public String toString() {
        return describe() + "(" + inputs.stream().map(v -> v == null ? "" : v.name()).collect(Collectors.joining(", "))
            + ") -> " + outputs.stream().map(Value::name).collect(Collectors.joining(", "));
    }
}
