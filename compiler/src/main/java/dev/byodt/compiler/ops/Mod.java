package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.ne;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * Mod of two broadcast tensors. fmod=0 (integers only, ONNX's default) takes the divisor's sign, as Python's %
 * does; fmod=1 the dividend's, as C's fmod does. Reals compute fmod as a - b * trunc(a / b) in the datatype,
 * so it is exact only where a / b rounds to the right side of an integer. The quotient becomes an integer by
 * the datatype's conversion, which may round (a posit's does) rather than truncate, and is then moved back
 * toward zero where it went past the quotient.
 */
final class Mod {
    private Mod() {}

    static void registerAll() {
        Operators.register("Mod", new BroadcastFormula(Mod::type, Mod::mod));
    }

    private static ElementType type(Node node, List<Value> inputs) {
        ElementType type = TypeRules.common(node, inputs);
        if (type == ElementType.BOOL) throw node.error("is defined on numbers, not on bool");
        if (type == ElementType.FLOAT32 && node.intAttr("fmod", 0) == 0) {
            throw node.error("fmod=0 is defined on integers only; floating-point inputs need fmod=1");
        }
        return type;
    }

    /** The integer part of a real quotient, as an I64. */
    private static Expr truncated(Expr q) {
        Expr t = cast(ScalarType.I64, q);
        Expr back = cast(q.type(), t);
        Expr zero = constant(q.type(), 0);
        Expr upPastPositive = and(gt(back, q), gt(q, zero));
        Expr downPastNegative = and(lt(back, q), lt(q, zero));
        return select(upPastPositive, sub(t, 1), select(downPastNegative, add(t, 1), t));
    }

    private static Expr mod(Node node, List<Expr> args) {
        Expr a = args.get(0), b = args.get(1);
        if (!a.type().isInteger()) return sub(a, mul(b, cast(a.type(), truncated(div(a, b)))));
        Expr r = rem(a, b);
        if (node.intAttr("fmod", 0) != 0) return r;
        Expr signsDiffer = ne(lt(r, 0), lt(b, 0));
        return select(and(ne(r, constant(r.type(), 0)), signsDiffer), add(r, b), r);
    }
}
