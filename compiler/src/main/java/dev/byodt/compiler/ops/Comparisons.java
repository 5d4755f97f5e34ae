package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.runtime.ElementType;

import java.util.function.BinaryOperator;

/**
 * Equal, Less, LessOrEqual, Greater, GreaterOrEqual: bool tensors from two broadcast tensors of one type.
 * Real operands compare through the datatype's own comparison (posits as integers, so NaR equals NaR and
 * is below every number; IEEE formats unordered on NaN).
 */
final class Comparisons {
    private Comparisons() {}

    static void registerAll() {
        register("Equal", Exprs::eq);
        register("Less", Exprs::lt);
        register("LessOrEqual", Exprs::le);
        register("Greater", Exprs::gt);
        register("GreaterOrEqual", Exprs::ge);
    }

    private static void register(String opType, BinaryOperator<Expr> comparison) {
        Operators.register(opType, new BroadcastFormula((node, inputs) -> {
            TypeRules.common(node, inputs);
            return ElementType.BOOL;
        }, (node, args) -> comparison.apply(args.get(0), args.get(1))));
    }
}
