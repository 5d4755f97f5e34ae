package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Expr;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * How ScatterElements and ScatterND combine an update with the element already there (attribute reduction):
 * none replaces it, add/mul/max/min combine in the tensor's type, one rounding per update. Updates apply in
 * the order of the indices, so with none the last of duplicate indices wins.
 */
enum ScatterReduction {
    NONE, ADD, MUL, MAX, MIN;

    static ScatterReduction of(Node node) {
        String reduction = node.stringAttr("reduction", "none");
        ScatterReduction r = switch (reduction) {
            case "none" -> NONE;
            case "add" -> ADD;
            case "mul" -> MUL;
            case "max" -> MAX;
            case "min" -> MIN;
            default -> throw node.badAttribute("reduction", reduction, "none, add, mul, max or min");
        };
        if ((r == MAX || r == MIN) && node.opsetVersion() < 18) {
            throw node.badAttribute("reduction", reduction, "none, add or mul before opset 18");
        }
        return r;
    }

    Expr combine(Expr current, Expr update) {
        return switch (this) {
            case NONE -> update;
            case ADD -> add(current, update);
            case MUL -> mul(current, update);
            case MAX -> max(current, update);
            case MIN -> min(current, update);
        };
    }
}
