package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Shapes;

import java.util.Arrays;

/**
 * Reading a node's operands the way the float operators of this package need them: required and optional
 * inputs that must be float32, a convolution's kernel and bias against its weights, and the outputs the node asks for.
 */
final class Operands {
    private Operands() {}

    /** The type of input i, which the node must provide as a float32 tensor; {@code role} names it in errors. */
    static TensorType floatInput(Node node, int i, String role) {
        Value v = node.input(i);
        if (v == null) throw node.error("input " + role + " is missing");
        return requireFloat(node, v, role);
    }

    /** The type of input i when the node provides it (then float32), else null. */
    static TensorType optionalFloatInput(Node node, int i, String role) {
        Value v = node.input(i);
        return v == null ? null : requireFloat(node, v, role);
    }

    private static TensorType requireFloat(Node node, Value v, String role) {
        TensorType t = v.type();
        if (t.elementType() != ElementType.FLOAT32) {
            throw node.error("input " + role + " '" + v.name() + "' is " + v.declaredType() + "; only real tensors are supported");
        }
        return t;
    }

    static TensorType requireRank(Node node, TensorType t, String role, int minRank) {
        if (t.rank() < minRank) {
            throw node.error("input " + role + " has shape " + Shapes.format(t.shape()) + " but needs rank " + minRank
                + " or more");
        }
        return t;
    }

    /**
     * The spatial kernel of a convolution's weights W (dimensions 2 on); an explicit kernel_shape attribute
     * must agree with it.
     */
    static long[] kernelShape(Node node, TensorType w) {
        long[] kernel = Arrays.copyOfRange(w.shape(), 2, w.rank());
        long[] declared = node.intsAttr("kernel_shape", kernel);
        if (!Arrays.equals(declared, kernel)) {
            throw node.badAttribute("kernel_shape", declared, "the weights' spatial shape " + Shapes.format(kernel));
        }
        return kernel;
    }

    /** A convolution's optional bias B (null when absent) must hold one value per output map. */
    static void requireBiasPerMap(Node node, TensorType b, long maps) {
        if (b != null && (b.rank() != 1 || b.dim(0) != maps)) {
            throw node.error("bias B has shape " + Shapes.format(b.shape()) + ", expected " + maps);
        }
    }

    static TensorType floatTensor(long[] shape) { return new TensorType(ElementType.FLOAT32, shape); }

    /** Whether the node asks for output i (ONNX omits trailing outputs or gives them an empty name). */
    static boolean hasOutput(Node node, int i) {
        return i < node.outputs().size() && node.output(i) != null && !node.output(i).name().isEmpty();
    }

    static long product(long[] shape, int from, int to) {
        long p = 1;
        for (int d = from; d < to; d++) p *= shape[d];
        return p;
    }
}
