package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.Stmt;

import java.util.List;
import java.util.Map;

/** A kernel with some of the buffers it reads replaced by others of the same shape and element type. */
final class BufferSubstitution extends KernelRewriter {
    private final Map<Buffer, Buffer> replacements;

    private BufferSubstitution(Map<Buffer, Buffer> replacements) {
        this.replacements = replacements;
    }

    static Kernel apply(Kernel k, Map<Buffer, Buffer> replacements) {
        BufferSubstitution s = new BufferSubstitution(replacements);
        List<Buffer> inputs = k.inputs().stream().map(b -> b == null ? null : s.read(b)).toList();
        return new Kernel(k.name(), k.opType(), inputs, k.outputs(), k.scratch(), k.constants(), s.body(k.body()));
    }

    /** Only reads change: the kernel's stores go where they went. */
    @Override
    public Expr expr(Expr e) {
        return e instanceof Expr.Load l ? new Expr.Load(read(l.buffer()), expr(l.index())) : rebuilt(e);
    }

    /** A prefetch goes where the reads it prepares go. */
    @Override
    public List<Stmt> stmt(Stmt s) {
        return s instanceof Stmt.Prefetch p ? List.of(new Stmt.Prefetch(read(p.buffer()), expr(p.index()))) : super.stmt(s);
    }

    private Buffer read(Buffer b) { return replacements.getOrDefault(b, b); }
}
