package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.MinifloatCast;

import java.util.List;
import java.util.function.UnaryOperator;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * Cast to any element type byodt has. The result is computed in the target's computed type (see
 * {@link ElementType#computed()}): a cast to float16, bfloat16 or double is a real value in the model's
 * datatype, not rounded to the declared format, since every real tensor computes in --dtype. A cast to an 8- or
 * 4-bit float does round, as its saturate and round_mode attributes say ({@link MinifloatRounding}): those formats
 * are what a quantized model's numbers are, and the value goes on in the datatype. Reals become integers by
 * truncation toward zero, integers wrap to the target's bits (int64 to int8 keeps the low 8 bits, float 9 to
 * int4 is -7, as ONNX's reference does), and anything becomes bool by being nonzero.
 */
final class Cast implements Operator {
    static void registerAll() {
        Operators.register("Cast", new Cast());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        return List.of(new TensorType(target(node).computed(), node.input(0).type().shape()));
    }

    @Override
    public void checkAttributes(Node node) {
        ElementType target = target(node);
        if (target.minifloat() != null) minifloatCast(node, target);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        UnaryOperator<Expr> convert = converter(node, target(node), kb);
        Broadcasting.map(kb, kb.output(0), List.of(kb.input(0)), x -> convert.apply(x.getFirst()));
    }

    /** How Cast and CastLike {@code node} convert a value to {@code target}, in the kernel {@code kb} builds. */
    static UnaryOperator<Expr> converter(Node node, ElementType target, KernelBuilder kb) {
        if (target.minifloat() == null) return x -> to(target, x);
        MinifloatCast rounding = minifloatCast(node, target);
        return x -> MinifloatRounding.round(kb, rounding, x);
    }

    /** The rounding the node's saturate (1 by default) and round_mode ("up" by default, float8e8m0 only) choose. */
    private static MinifloatCast minifloatCast(Node node, ElementType target) {
        long saturate = node.intAttr("saturate", 1);
        if (saturate != 0 && saturate != 1) throw node.error("attribute saturate=" + saturate + " must be 0 or 1");
        String mode = node.stringAttr("round_mode", "up");
        MinifloatCast.E8m0Rounding rounding = MinifloatCast.E8m0Rounding.of(mode);
        if (rounding == null) throw node.error("attribute round_mode='" + mode + "' must be up, down or nearest");
        return new MinifloatCast(target.minifloat(), saturate == 1, rounding);
    }

    /** x converted to the declared element type {@code target} (not an 8- or 4-bit float), as a value of its computed type. */
    private static Expr to(ElementType target, Expr x) {
        ScalarType computed = ScalarType.of(target);
        if (!target.isInteger() || target.integerBits() == Long.SIZE || target == ElementType.INT32) return cast(computed, x);
        // A narrower integer type lives in a wider computed one: wrap to its bits there.
        Expr wide = cast(ScalarType.I64, x);
        long modulus = 1L << target.integerBits();
        Expr r = rem(wide, modulus);
        r = select(lt(r, 0), add(r, modulus), r);
        if (!target.isUnsigned()) r = select(ge(r, modulus / 2), sub(r, modulus), r);
        return cast(computed, r);
    }

    private static ElementType target(Node node) {
        if (!node.hasAttribute("to")) throw node.error("needs attribute 'to'");
        long code = node.intAttr("to", 0);
        ElementType type = ElementType.fromOnnx((int) code);
        if (type == null) {
            throw node.error("casting to " + ElementType.onnxName((int) code) + " is not supported ("
                + ElementType.supportedList() + " are)");
        }
        return type;
    }
}
