package dev.byodt.compiler.kernel;

import java.util.ArrayList;
import java.util.List;

/**
 * Rewrites statements and expressions: as it stands, the identity, rebuilding each node from its rewritten
 * parts (For, Store, Assign, Prefetch and If; Load, Op and Call, and the buffers and locals they name). A pass
 * overrides the hooks for what it changes and calls {@link #rebuilt} for the rest, so that it reaches every
 * node however deep. Parts are rewritten in evaluation order: a loop's extent before its body, a store's
 * index before its value, an operation's arguments first to last.
 */
public class KernelRewriter {
    /** The statements {@code body} becomes, in order. */
    public List<Stmt> body(List<Stmt> body) {
        List<Stmt> out = new ArrayList<>();
        for (Stmt s : body) out.addAll(stmt(s));
        return out;
    }

    /** The statements {@code s} becomes (a pass may replace one loop by several): by default, {@code s} rebuilt. */
    public List<Stmt> stmt(Stmt s) { return List.of(rebuilt(s)); }

    /** What {@code e} becomes: by default, {@code e} rebuilt. */
    public Expr expr(Expr e) { return rebuilt(e); }

    /** The buffer a load or store of {@code b} goes to: by default, {@code b}. */
    public Buffer buffer(Buffer b) { return b; }

    /** The local an assignment to or a use of {@code l} names: by default, {@code l}. */
    public Local local(Local l) { return l; }

    /** {@code s} with its parts rewritten. */
    protected final Stmt rebuilt(Stmt s) {
        return switch (s) {
            case Stmt.For f -> new Stmt.For(f.var(), expr(f.extent()), body(f.body()));
            case Stmt.Store st -> new Stmt.Store(buffer(st.buffer()), expr(st.index()), expr(st.value()));
            case Stmt.Assign a -> new Stmt.Assign(local(a.local()), expr(a.value()));
            case Stmt.Prefetch p -> new Stmt.Prefetch(buffer(p.buffer()), expr(p.index()));
            case Stmt.If i -> new Stmt.If(expr(i.condition()), body(i.then()), body(i.otherwise()));
        };
    }

    /** {@code e} with its parts rewritten. */
    protected final Expr rebuilt(Expr e) {
        return switch (e) {
            case Expr.IntConst c -> c;
            case Expr.RealConst c -> c;
            case Expr.Var v -> v;
            case Expr.LocalRef l -> new Expr.LocalRef(local(l.local()));
            case Expr.Load l -> new Expr.Load(buffer(l.buffer()), expr(l.index()));
            case Expr.Op o -> new Expr.Op(o.op(), o.type(), args(o.args()));
            case Expr.Call c -> new Expr.Call(c.function(), c.type(), args(c.args()), c.passing());
        };
    }

    /** Each of {@code args} rewritten, first to last. */
    protected final List<Expr> args(List<Expr> args) { return args.stream().map(this::expr).toList(); }
}
