package dev.byodt.compiler.graph;

import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Shapes;

import java.util.Arrays;

/** A tensor's element type and static shape (every dimension known at compile time). */
public record TensorType(ElementType elementType, long[] shape) {
    public TensorType {
        shape = shape.clone();
    }

    public int rank() { return shape.length; }

    public long dim(int axis) { return shape[axis]; }

    public long elementCount() { return Shapes.elementCount(shape, "?"); }

    @Override
    public long[] shape() { return shape.clone(); }

    public TensorType withShape(long[] newShape) { return new TensorType(elementType, newShape); }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorType t && t.elementType == elementType && Arrays.equals(t.shape, shape);
    }

    @Override
    public int hashCode() { return elementType.hashCode() * 31 + Arrays.hashCode(shape); }

    @Override
    public String toString() { return elementType + "[" + Shapes.format(shape) + "]"; }
}
