package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Exprs;

import java.util.List;

/** Where(condition, X, Y): X's element where the condition holds, else Y's, all three broadcast; it moves bits only. */
final class Where {
    private Where() {}

    static void registerAll() {
        Operators.register("Where", new BroadcastFormula((node, inputs) -> {
            TypeRules.requireBool(node, inputs.get(0));
            return TypeRules.common(node, List.of(inputs.get(1), inputs.get(2)));
        }, (node, args) -> Exprs.select(args.get(0), args.get(1), args.get(2))));
    }
}
