package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.pow;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * Pow(X, Y) with broadcasting. Unlike the other binary operators X and Y may have different element types
 * (from opset 12); the result has X's. A real power goes through the REAL pow; an integer base raised to
 * an integer exponent is computed exactly, by repeated squaring, since a float pow would round large
 * integer results.
 */
final class Pow implements Operator {
    /** Enough squarings for any int64 exponent that does not overflow the result. */
    private static final int EXPONENT_BITS = 63;

    static void registerAll() {
        Operators.register("Pow", new Pow());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = node.input(0).type();
        return List.of(x.withShape(Broadcasting.shape(node, List.of(x.shape(), node.input(1).type().shape()))));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer base = kb.input(0), exponent = kb.input(1), out = kb.output(0);
        ScalarType type = out.elementType();
        kb.loops(out.shape(), i -> {
            Expr x = kb.load(base, Broadcasting.index(base.shape(), i));
            Expr y = kb.load(exponent, Broadcasting.index(exponent.shape(), i));
            Expr result = type.isInteger() && y.type().isInteger()
                ? integerPower(kb, x, cast(type, y))
                : cast(type, pow(cast(ScalarType.REAL, x), cast(ScalarType.REAL, y)));
            kb.store(out, flatIndex(out.shape(), i), result);
        });
    }

    /**
     * x^y by binary exponentiation over the bits of y. A negative integer exponent (which ONNX leaves
     * undefined, and numpy refuses) gives 1.
     */
    private static Expr integerPower(KernelBuilder kb, Expr x, Expr y) {
        ScalarType type = x.type();
        Local result = kb.local("power", constant(type, 1));
        Local square = kb.local("square", x);
        Local bits = kb.local("bits", y);
        kb.loop(EXPONENT_BITS, bit -> {
            kb.when(eq(rem(kb.get(bits), 2), constant(type, 1)),
                () -> kb.assign(result, mul(kb.get(result), kb.get(square))));
            kb.assign(square, mul(kb.get(square), kb.get(square)));
            kb.assign(bits, div(kb.get(bits), 2));
        });
        return kb.get(result);
    }
}
