package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Expr;

import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * Sign: 1 above zero, -1 below, and otherwise the element itself, which keeps zeros and NaN as they are
 * (numpy's sign of NaN is NaN). The comparisons are the datatype's.
 */
final class Sign {
    private Sign() {}

    static void registerAll() {
        Operators.register("Sign", ElementwiseUnary.onNumbers((node, x) -> sign(x)));
    }

    private static Expr sign(Expr x) {
        Expr zero = constant(x.type(), 0);
        return select(gt(x, zero), constant(x.type(), 1), select(lt(x, zero), constant(x.type(), -1), x));
    }
}
