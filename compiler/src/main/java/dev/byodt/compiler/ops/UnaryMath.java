package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Exprs;

import static dev.byodt.compiler.ops.ElementwiseUnary.onNumbers;
import static dev.byodt.compiler.ops.ElementwiseUnary.onReals;

/** The elementary functions of one tensor, each a single scalar operation. */
final class UnaryMath {
    private UnaryMath() {}

    static void registerAll() {
        Operators.register("Neg", onNumbers((node, x) -> Exprs.neg(x)));
        Operators.register("Abs", onNumbers((node, x) -> Exprs.abs(x)));
        Operators.register("Sqrt", onReals((node, x) -> Exprs.sqrt(x)));
        Operators.register("Exp", onReals((node, x) -> Exprs.exp(x)));
        Operators.register("Log", onReals((node, x) -> Exprs.log(x)));
        Operators.register("Erf", onReals((node, x) -> Exprs.erf(x)));
        Operators.register("Tanh", onReals((node, x) -> Exprs.tanh(x)));
        Operators.register("Sigmoid", onReals((node, x) -> Exprs.sigmoid(x)));
        Operators.register("Reciprocal", onReals((node, x) -> Exprs.div(Exprs.real(1), x)));
    }
}
