package dev.byodt.compiler.graph;

import dev.byodt.runtime.Tensor;

/**
 * A named tensor of the graph: a graph input, a weight, or a node's output. Its type is known once shape
 * inference has reached it; its constant is set for weights and for values folded at compile time.
 */
public final class Value {
    private final String name;
    private TensorType type;
    private Tensor constant;

    public Value(String name) {
        this.name = name;
    }

    public String name() { return name; }

    public TensorType type() { return type; }

    public void setType(TensorType type) { this.type = type; }

    public boolean isConstant() { return constant != null; }

    /** The compile-time value, or null when the value is only known at run time. */
    public Tensor constant() { return constant; }

    public void setConstant(Tensor constant) {
        this.constant = constant;
        this.type = new TensorType(constant.type(), constant.shape());
    }

    @Override
    public String toString() { return name + (type == null ? "" : ": " + type); }
}
