package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.MinifloatCast;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;

/**
 * QuantizeLinear (opsets 10, 13, 19, 21): y = saturate(roundHalfEven(x / y_scale) + y_zero_point), per
 * tensor, per axis or per block (see {@link QuantizationAxis}). x / y_scale is computed in the datatype x
 * has (the --dtype), then rounded exactly; the result saturates to the range of the output's integer type,
 * which is the zero point's type, else the {@code output_dtype} attribute (opset 21), else uint8. To an 8- or
 * 4-bit float, x / y_scale is rounded as Cast rounds to it instead (opset 19 on, with the saturate attribute).
 */
final class QuantizeLinear implements Operator {
    private static final String SUPPORTED = "integer types up to 32 bits and the 8- and 4-bit floats but float8e8m0";

    static void registerAll() {
        Operators.register("QuantizeLinear", new QuantizeLinear());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        QuantizationAxis.of(node);
        return List.of(new TensorType(outputType(node).computed(), node.input(0).type().shape()));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        ElementType target = outputType(node);
        Buffer zeroPoint = kb.input(2);
        if (target.minifloat() != null) {
            lowerToMinifloat(node, kb, target);
            return;
        }
        QuantizationAxis.of(node).forEachElement(kb, (flat, parameter) -> {
            Expr offset = zeroPoint == null ? idx(0) : cast(ScalarType.I64, kb.load(zeroPoint, parameter));
            kb.store(kb.output(0), flat, quantized(target, div(kb.load(kb.input(0), flat), kb.load(kb.input(1), parameter)), offset));
        });
    }

    /**
     * A real value already divided by its scale, as the integer type {@code target} holds it:
     * saturate(roundHalfEven(scaled) + offset), the offset (the zero point) an int64.
     */
    static Expr quantized(ElementType target, Expr scaled, Expr offset) {
        return cast(ScalarType.of(target), saturate(target, add(RoundHalfEven.toInt64(scaled), offset)));
    }

    /**
     * To an 8- or 4-bit float: x / y_scale plus the zero point (which ONNX requires to be 0 for the float8s),
     * rounded to the format as Cast rounds it, with the node's saturate; the value goes on in the datatype.
     */
    private static void lowerToMinifloat(Node node, KernelBuilder kb, ElementType target) {
        long saturate = node.intAttr("saturate", 1);
        if (saturate != 0 && saturate != 1) throw node.error("attribute saturate=" + saturate + " must be 0 or 1");
        MinifloatCast rounding = new MinifloatCast(target.minifloat(), saturate == 1, MinifloatCast.E8m0Rounding.UP);
        Buffer zeroPoint = kb.input(2);
        QuantizationAxis.of(node).forEachElement(kb, (flat, parameter) -> {
            Expr scaled = div(kb.load(kb.input(0), flat), kb.load(kb.input(1), parameter));
            if (zeroPoint != null) scaled = add(scaled, kb.load(zeroPoint, parameter));
            kb.store(kb.output(0), flat, MinifloatRounding.round(kb, rounding, scaled));
        });
    }

    /** An int64 value clamped to the range of the integer type {@code target}. */
    private static Expr saturate(ElementType target, Expr value) {
        int bits = target.integerBits();
        long lowest = target.isUnsigned() ? 0 : -(1L << (bits - 1));
        long highest = target.isUnsigned() ? (1L << bits) - 1 : (1L << (bits - 1)) - 1;
        return min(max(value, lowest), highest);
    }

    private static ElementType outputType(Node node) {
        if (node.input(2) != null) return checked(node, node.input(2).declaredType(), "zero point type");
        long code = node.intAttr("output_dtype", 0);
        if (code == 0) return ElementType.UINT8;
        ElementType type = ElementType.fromOnnx((int) code);
        if (type == null) {
            throw node.error("quantizing to " + ElementType.onnxName((int) code) + " is not supported (" + SUPPORTED + " are)");
        }
        return checked(node, type, "output_dtype");
    }

    private static ElementType checked(Node node, ElementType type, String what) {
        boolean integer = type.isInteger() && type.integerBits() <= Integer.SIZE;
        boolean minifloat = type.minifloat() != null && type != ElementType.FLOAT8E8M0;
        if (!integer && !minifloat) {
            throw node.error("quantizing to " + type + " (the " + what + ") is not supported (" + SUPPORTED + " are)");
        }
        return type;
    }
}
