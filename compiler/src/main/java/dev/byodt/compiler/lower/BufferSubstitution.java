package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.Stmt;

import java.util.List;
import java.util.Map;

/** A kernel with some of the buffers it reads replaced by others of the same shape and element type. */
final class BufferSubstitution {
    private final Map<Buffer, Buffer> replacements;

    private BufferSubstitution(Map<Buffer, Buffer> replacements) {
        this.replacements = replacements;
    }

    static Kernel apply(Kernel k, Map<Buffer, Buffer> replacements) {
        BufferSubstitution s = new BufferSubstitution(replacements);
        List<Buffer> inputs = k.inputs().stream().map(b -> b == null ? null : s.buffer(b)).toList();
        return new Kernel(k.name(), k.opType(), inputs, k.outputs(), k.scratch(), k.constants(), s.body(k.body()));
    }

    private Buffer buffer(Buffer b) { return replacements.getOrDefault(b, b); }

    private List<Stmt> body(List<Stmt> body) { return body.stream().map(this::stmt).toList(); }

    private Stmt stmt(Stmt s) {
        return switch (s) {
            case Stmt.For f -> new Stmt.For(f.var(), expr(f.extent()), body(f.body()));
            case Stmt.Store st -> new Stmt.Store(st.buffer(), expr(st.index()), expr(st.value()));
            case Stmt.Assign a -> new Stmt.Assign(a.local(), expr(a.value()));
            case Stmt.If i -> new Stmt.If(expr(i.condition()), body(i.then()), body(i.otherwise()));
        };
    }

    private Expr expr(Expr e) {
        return switch (e) {
            case Expr.Load l -> new Expr.Load(buffer(l.buffer()), expr(l.index()));
            case Expr.Op o -> new Expr.Op(o.op(), o.type(), o.args().stream().map(this::expr).toList());
            case Expr.Call c -> new Expr.Call(c.function(), c.type(), c.args().stream().map(this::expr).toList(), c.passing());
            default -> e;
        };
    }
}
