package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.bool;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.ne;
import static dev.byodt.compiler.kernel.Exprs.or;

/**
 * IsNaN and IsInf. Whether a value is NaN or infinite is a property of its format, so each element is
 * converted to float32 by the datatype's own conversion, which maps a posit's NaR to NaN and has no
 * infinity for formats without one (fixed point, posits): those are never infinite, as in their format.
 */
final class FloatClasses {
    private FloatClasses() {}

    static void registerAll() {
        Operators.register("IsNaN", new BroadcastFormula(FloatClasses::realToBool, (node, args) -> {
            Expr x = cast(ScalarType.F32, args.getFirst());
            return ne(x, x);
        }));
        Operators.register("IsInf", new BroadcastFormula(FloatClasses::realToBool, FloatClasses::isInf));
    }

    private static ElementType realToBool(Node node, List<Value> inputs) {
        TypeRules.requireFloat(node, inputs.getFirst());
        return ElementType.BOOL;
    }

    /** detect_positive and detect_negative (both 1 by default) choose which infinities count. */
    private static Expr isInf(Node node, List<Expr> args) {
        Expr x = cast(ScalarType.F32, args.getFirst());
        Expr positive = node.intAttr("detect_positive", 1) != 0 ? eq(x, infinity(1)) : bool(false);
        Expr negative = node.intAttr("detect_negative", 1) != 0 ? eq(x, infinity(-1)) : bool(false);
        return or(positive, negative);
    }

    private static Expr infinity(int sign) {
        return new Expr.RealConst(ScalarType.F32, sign * Double.POSITIVE_INFINITY);
    }
}
