package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Shapes;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.idx;

/**
 * A scale or zero point of an operand of the quantized products (MatMulInteger, ConvInteger, QLinearMatMul,
 * QLinearConv): one value for the whole tensor (a scalar or any one-element tensor), or a 1-D tensor of one value
 * per slice along one dimension (a row of A, a column of B, an output channel of the weights), as the ONNX
 * specifications of these operators allow.
 *
 * @param input    the node's input that holds it
 * @param perSlice whether it has one value per slice rather than one for the tensor
 */
record QuantizationParameter(int input, boolean perSlice) {
    /**
     * The layout of input {@code input}, which may be omitted ({@link #load} then gives null), checked against
     * the {@code slices} slices {@code along} names in errors ("rows of A"); {@code perSliceAllowed} false
     * allows one value for the tensor only.
     */
    static QuantizationParameter of(Node node, int input, String role, long slices, String along, boolean perSliceAllowed) {
        Value v = node.input(input);
        if (v == null) return new QuantizationParameter(input, false);
        long[] shape = v.type().shape();
        if (Shapes.elementCount(shape, role) == 1) return new QuantizationParameter(input, false);
        if (perSliceAllowed && shape.length == 1 && shape[0] == slices) return new QuantizationParameter(input, true);
        String expected = perSliceAllowed ? "one value, or " + slices + " (one per " + along + ")" : "one value";
        throw node.error(role + " '" + v.name() + "' has shape " + Shapes.format(shape) + "; expected " + expected);
    }

    /**
     * A zero point: like {@link #of}, an int8 or uint8 tensor, and of the element type of its operand where both
     * types are known, as ONNX requires.
     */
    static QuantizationParameter zeroPoint(Node node, int input, String role, ElementType operand, long slices, String along,
                                           boolean perSliceAllowed) {
        Value v = node.input(input);
        if (v != null) {
            ElementType type = integerOperand(node, input, role);
            if (isEightBit(type) && isEightBit(operand) && type != operand) {
                throw node.error(role + " '" + v.name() + "' is " + type + " but its operand is " + operand);
            }
        }
        return of(node, input, role, slices, along, perSliceAllowed);
    }

    /** A scale: like {@link #of}, a required real tensor. */
    static QuantizationParameter scale(Node node, int input, String role, long slices, String along, boolean perSliceAllowed) {
        Operands.floatInput(node, input, role);
        return of(node, input, role, slices, along, perSliceAllowed);
    }

    /** The value for slice {@code slice} (ignored for one value per tensor), or null when the node omits it. */
    Expr load(KernelBuilder kb, Expr slice) {
        Buffer buffer = kb.input(input);
        return buffer == null ? null : kb.load(buffer, perSlice ? slice : idx(0));
    }

    /** A zero point's value for slice {@code slice} as an int32, 0 when the node omits it. */
    Expr zeroPoint(KernelBuilder kb, Expr slice) {
        Expr value = load(kb, slice);
        return value == null ? cast(ScalarType.I32, idx(0)) : cast(ScalarType.I32, value);
    }

    /**
     * The type of a quantized input, which the node must provide: int8 or uint8. A value computed inside the graph
     * is known only as the int32 it is computed in (byodt does not carry declared types through nodes), so int32
     * passes too; ONNX's checker has already held such a value to its operator's types.
     */
    static ElementType integerOperand(Node node, int input, String role) {
        Value v = node.input(input);
        if (v == null) throw node.error("input " + role + " is missing");
        ElementType type = v.declaredType();
        if (!isEightBit(type) && type != ElementType.INT32) {
            throw node.error("input " + role + " '" + v.name() + "' is " + type + "; " + node.opType() + " takes int8 or uint8");
        }
        return type;
    }

    /** The shape of a quantized input checked by {@link #integerOperand}. */
    static TensorType integerInput(Node node, int input, String role) {
        integerOperand(node, input, role);
        return node.input(input).type();
    }

    private static boolean isEightBit(ElementType type) { return type == ElementType.INT8 || type == ElementType.UINT8; }
}
