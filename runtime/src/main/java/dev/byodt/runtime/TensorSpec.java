package dev.byodt.runtime;

/** A compiled model's input or output as callers see it: ONNX name, element type and static shape. */
public record TensorSpec(String name, ElementType type, long[] shape) {
    public TensorSpec {
        shape = shape.clone();
    }

    @Override
    public long[] shape() { return shape.clone(); }

    public long elementCount() { return Shapes.elementCount(shape, name); }

    public long byteSize() { return elementCount() * type.byteSize(); }

    @Override
    public String toString() { return name + ": " + type + "[" + Shapes.format(shape) + "]"; }
}
