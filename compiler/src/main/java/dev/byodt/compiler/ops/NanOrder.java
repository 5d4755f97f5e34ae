package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.ne;
import static dev.byodt.compiler.kernel.Exprs.not;
import static dev.byodt.compiler.kernel.Exprs.or;

/**
 * The order in which the selection operators (ArgMax, ArgMin, TopK) rank elements: the datatype's own
 * comparisons (posits and fixed point compare by their bit patterns' order), with NaN, where a datatype has
 * one (x != x), above every number, as numpy's sort places it. Integers have no NaN and compare directly.
 */
final class NanOrder {
    private NanOrder() {}

    static Expr isNaN(Expr x) { return ne(x, x); }

    /** a ranks above b. */
    static Expr above(Expr a, Expr b) {
        if (a.type() != ScalarType.REAL) return gt(a, b);
        return or(gt(a, b), and(isNaN(a), not(isNaN(b))));
    }

    /** a and b rank alike: equal, or both NaN. */
    static Expr alike(Expr a, Expr b) {
        if (a.type() != ScalarType.REAL) return eq(a, b);
        return or(eq(a, b), and(isNaN(a), isNaN(b)));
    }
}
