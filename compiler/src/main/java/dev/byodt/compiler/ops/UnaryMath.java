package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.ScalarOp;

import static dev.byodt.compiler.ops.ElementwiseUnary.onNumbers;
import static dev.byodt.compiler.ops.ElementwiseUnary.onReals;

/** The elementary functions of one tensor, each a single scalar operation. */
final class UnaryMath {
    private UnaryMath() {}

    static void registerAll() {
        for (ScalarOp op : ScalarOp.values()) {
            op.onnxOperator().ifPresent(name -> Operators.register(name, op.category() == ScalarOp.Category.ARITHMETIC
                ? onNumbers((node, x) -> Exprs.unary(op, x))
                : onReals((node, x) -> Exprs.unary(op, x))));
        }
        Operators.register("Reciprocal", onReals((node, x) -> Exprs.div(Exprs.real(1), x)));
    }
}
