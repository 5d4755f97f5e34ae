package dev.byodt.compiler.kernel;

import java.util.List;
import java.util.function.Consumer;

/** Visits every expression of a statement list, sub-expressions included, in evaluation order. */
public final class KernelWalker {
    private KernelWalker() {}

    public static void forEachExpr(List<Stmt> body, Consumer<Expr> visitor) {
        for (Stmt s : body) forEachExpr(s, visitor);
    }

    private static void forEachExpr(Stmt stmt, Consumer<Expr> visitor) {
        switch (stmt) {
            case Stmt.For f -> {
                visit(f.extent(), visitor);
                forEachExpr(f.body(), visitor);
            }
            case Stmt.Store s -> {
                visit(s.index(), visitor);
                visit(s.value(), visitor);
            }
            case Stmt.Assign a -> visit(a.value(), visitor);
            case Stmt.Prefetch p -> visit(p.index(), visitor);
            case Stmt.If i -> {
                visit(i.condition(), visitor);
                forEachExpr(i.then(), visitor);
                forEachExpr(i.otherwise(), visitor);
            }
        }
    }

    /** Visits {@code e} and its sub-expressions, innermost first. */
    public static void visit(Expr e, Consumer<Expr> visitor) {
        switch (e) {
            case Expr.Load l -> visit(l.index(), visitor);
            case Expr.Op o -> o.args().forEach(a -> visit(a, visitor));
            case Expr.Call c -> c.args().forEach(a -> visit(a, visitor));
            default -> { }
        }
        visitor.accept(e);
    }
}
