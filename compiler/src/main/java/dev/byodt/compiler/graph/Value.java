package dev.byodt.compiler.graph;

import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

/**
 * A named tensor of the graph: a graph input, a weight, or a node's output. Its type is known once shape
 * inference has reached it; its constant is set for weights and for values folded at compile time.
 */
public final class Value {
    private final String name;
    private TensorType type;
    private Tensor constant;
    private ElementType declaredType;

    public Value(String name) {
        this.name = name;
    }

    public String name() { return name; }

    public TensorType type() { return type; }

    public void setType(TensorType type) { this.type = type; }

    /**
     * The element type the model declares for this graph input or output, which callers exchange; inside
     * the graph the value has the type it is {@linkplain ElementType#computed() computed} in.
     */
    public ElementType declaredType() { return declaredType != null ? declaredType : type.elementType(); }

    public void setDeclaredType(ElementType declaredType) { this.declaredType = declaredType; }

    public boolean isConstant() { return constant != null; }

    /** The compile-time value, or null when the value is only known at run time. */
    public Tensor constant() { return constant; }

    /** Sets the compile-time value, converted to the type it is computed in. */
    public void setConstant(Tensor constant) {
        // A weight's own type is what it declares (a uint8 zero point names QuantizeLinear's output type).
        if (declaredType == null) declaredType = constant.type();
        constant = constant.convertedTo(constant.type().computed());
        this.constant = constant;
        this.type = new TensorType(constant.type(), constant.shape());
    }

    @Override
    public String toString() { return name + (type == null ? "" : ": " + type); }
}
