package dev.byodt.compiler.codegen;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.Stmt;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a kernel's machine code depends on, and nothing else: its body, with each buffer written as the position
 * of the parameter its memory arrives in (and the element type it is read as), and loop variables and locals
 * numbered in the order they appear. Kernels with equal structures compile to the same function, so the code
 * generator emits that function once: a transformer repeats each layer's kernels over other weights, and LLVM's
 * time grows with the code it is given.
 */
final class KernelStructure {
    private final List<Buffer> parameters;
    private final Map<LoopVar, Integer> loopVars = new HashMap<>();
    private final Map<Local, Integer> locals = new HashMap<>();
    private final StringBuilder text = new StringBuilder();

    private KernelStructure(List<Buffer> parameters) {
        this.parameters = parameters;
    }

    /** The structure of {@code kernel}, whose buffers arrive as {@code parameters} (storage buffers, in order). */
    static String of(Kernel kernel, List<Buffer> parameters) {
        KernelStructure structure = new KernelStructure(parameters);
        structure.text.append(parameters.size()).append(" parameters\n");
        structure.statements(kernel.body());
        return structure.text.toString();
    }

    private void statements(List<Stmt> body) {
        text.append('{');
        for (Stmt s : body) statement(s);
        text.append('}');
    }

    private void statement(Stmt s) {
        switch (s) {
            case Stmt.For f -> {
                text.append(f.var().splits() ? "split for v" : f.var().spansVectors() ? "vector for v" : "for v")
                    .append(number(loopVars, f.var())).append(" < ");
                expr(f.extent());
                statements(f.body());
            }
            case Stmt.Store st -> {
                buffer(st.buffer());
                text.append('[');
                expr(st.index());
                text.append("] = ");
                expr(st.value());
                text.append(';');
            }
            case Stmt.Prefetch p -> {
                text.append("prefetch ");
                buffer(p.buffer());
                text.append('[');
                expr(p.index());
                text.append("];");
            }
            case Stmt.Assign a -> {
                local(a.local());
                text.append(" = ");
                expr(a.value());
                text.append(';');
            }
            case Stmt.If i -> {
                text.append("if ");
                expr(i.condition());
                statements(i.then());
                text.append(" else ");
                statements(i.otherwise());
            }
        }
    }

    private void expr(Expr e) {
        switch (e) {
            // Raw bits: -0.0 and 0.0, or two NaNs, are different constants.
            case Expr.RealConst r -> text.append(r.type()).append(' ').append(Long.toHexString(Double.doubleToRawLongBits(r.value())));
            case Expr.IntConst i -> text.append(i.type()).append(' ').append(i.value());
            case Expr.Var v -> text.append('v').append(number(loopVars, v.var()));
            case Expr.LocalRef l -> local(l.local());
            case Expr.Load l -> {
                buffer(l.buffer());
                text.append('[');
                expr(l.index());
                text.append(']');
            }
            case Expr.Op o -> arguments(o.op() + ":" + o.type(), o.args());
            case Expr.Call c -> arguments(c.function() + ":" + c.type() + ":" + c.passing(), c.args());
        }
    }

    private void arguments(String head, List<Expr> args) {
        text.append(head).append('(');
        for (Expr a : args) {
            expr(a);
            text.append(',');
        }
        text.append(')');
    }

    private void buffer(Buffer b) {
        int position = parameters.indexOf(b.storage());
        if (position < 0) throw new IllegalStateException("buffer " + b + " is not a parameter of its kernel");
        text.append('p').append(position).append(':').append(b.elementType());
    }

    private void local(Local l) {
        text.append('l').append(number(locals, l)).append(':').append(l.type());
    }

    private static <K> int number(Map<K, Integer> numbers, K key) {
        return numbers.computeIfAbsent(key, k -> numbers.size());
    }
}
