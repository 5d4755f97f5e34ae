package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.runtime.ElementType;

import java.util.List;
import java.util.function.BinaryOperator;

/** Not, And, Or, Xor on bool tensors (the binary ones broadcast); Xor is inequality of truth values. */
final class Logic {
    private Logic() {}

    static void registerAll() {
        Operators.register("Not", new BroadcastFormula(Logic::bools, (node, args) -> Exprs.not(args.getFirst())));
        register("And", Exprs::and);
        register("Or", Exprs::or);
        register("Xor", Exprs::ne);
    }

    private static void register(String opType, BinaryOperator<Expr> formula) {
        Operators.register(opType, new BroadcastFormula(Logic::bools, (node, args) -> formula.apply(args.get(0), args.get(1))));
    }

    private static ElementType bools(Node node, List<Value> inputs) {
        for (Value v : inputs) TypeRules.requireBool(node, v);
        return ElementType.BOOL;
    }
}
