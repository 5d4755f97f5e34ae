package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import java.util.List;

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
 * datatype, not rounded to the declared format, since every real tensor computes in --dtype. Reals become
 * integers by truncation toward zero, integers wrap to the target's bits (int64 to int8 keeps the low 8
 * bits, as ONNX's reference does), and anything becomes bool by being nonzero.
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
    public void checkAttributes(Node node) { target(node); }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        ElementType target = target(node);
        Broadcasting.map(kb, kb.output(0), List.of(kb.input(0)), x -> to(target, x.getFirst()));
    }

    /** x converted to the declared element type {@code target}, as a value of its computed type. */
    static Expr to(ElementType target, Expr x) {
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
