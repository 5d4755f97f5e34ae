package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

/** What the loop-rewriting passes (GroupedProducts, PackedLanes) do to expressions over a loop's variable. */
final class LoopIndices {
    private LoopIndices() {}

    static boolean uses(Expr e, LoopVar var) {
        boolean[] found = {false};
        KernelWalker.visit(e, x -> found[0] |= x instanceof Expr.Var v && v.var() == var);
        return found[0];
    }

    /** {@code factor * j + offset}. */
    static Expr scaled(LoopVar j, long factor, long offset) {
        Expr times = new Expr.Op(ScalarOp.MUL, ScalarType.I64, List.of(new Expr.Var(j), new Expr.IntConst(ScalarType.I64, factor)));
        return offset == 0 ? times : new Expr.Op(ScalarOp.ADD, ScalarType.I64, List.of(times, new Expr.IntConst(ScalarType.I64, offset)));
    }

    /** {@code e} with every use of {@code var} replaced by {@code value}. */
    static Expr substitute(Expr e, LoopVar var, Expr value) {
        return new KernelRewriter() {
            @Override
            public Expr expr(Expr x) { return x instanceof Expr.Var v && v.var() == var ? value : rebuilt(x); }
        }.expr(e);
    }
}
