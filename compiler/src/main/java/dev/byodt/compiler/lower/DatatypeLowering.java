package dev.byodt.compiler.lower;

import dev.byodt.compiler.dtype.Datatype;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.runtime.Tensor;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rewrites a program for one datatype: REAL and ACC become the datatype's storage type in buffers,
 * locals and expressions, real constants become machine constants, and every operation touching a REAL
 * or ACC value becomes what the datatype says (machine operations or library calls). Afterwards the
 * program contains machine types only, which is all code generation understands.
 */
public final class DatatypeLowering {
    private final Datatype datatype;
    private final Map<Buffer, Buffer> buffers = new HashMap<>();
    private final Map<Local, Local> locals = new HashMap<>();

    private DatatypeLowering(Datatype datatype) {
        this.datatype = datatype;
    }

    public static Program lower(Program program, Datatype datatype) {
        return new DatatypeLowering(datatype).lower(program);
    }

    private Program lower(Program p) {
        List<Kernel> kernels = p.kernels().stream().map(this::kernel).toList();
        Map<Buffer, Tensor> constants = new LinkedHashMap<>();
        p.constants().forEach((b, t) -> constants.put(buffer(b), t));
        return new Program(p.name(), kernels, p.inputs().stream().map(this::buffer).toList(), p.inputSpecs(),
            p.outputs().stream().map(this::buffer).toList(), p.outputSpecs(), constants,
            p.temporaries().stream().map(this::buffer).toList());
    }

    private Kernel kernel(Kernel k) {
        // Omitted optional inputs stay null (Stream.toList accepts nulls).
        List<Buffer> inputs = k.inputs().stream().map(b -> b == null ? null : buffer(b)).toList();
        Map<Buffer, Tensor> constants = new LinkedHashMap<>();
        k.constants().forEach((b, t) -> constants.put(buffer(b), t));
        return new Kernel(k.name(), k.opType(), inputs, k.outputs().stream().map(this::buffer).toList(),
            k.scratch().stream().map(this::buffer).toList(), constants, body(k.body()));
    }

    private List<Stmt> body(List<Stmt> body) {
        return body.stream().map(this::stmt).toList();
    }

    private Stmt stmt(Stmt s) {
        return switch (s) {
            case Stmt.For f -> new Stmt.For(f.var(), expr(f.extent()), body(f.body()));
            case Stmt.Store st -> new Stmt.Store(buffer(st.buffer()), expr(st.index()), expr(st.value()));
            case Stmt.Assign a -> new Stmt.Assign(local(a.local()), expr(a.value()));
            case Stmt.If i -> new Stmt.If(expr(i.condition()), body(i.then()), body(i.otherwise()));
        };
    }

    private Expr expr(Expr e) {
        return switch (e) {
            case Expr.IntConst c -> c;
            case Expr.RealConst c -> c.type().isAbstract() ? datatype.constant(c.value()) : c;
            case Expr.Var v -> v;
            case Expr.LocalRef l -> new Expr.LocalRef(local(l.local()));
            case Expr.Load l -> new Expr.Load(buffer(l.buffer()), expr(l.index()));
            case Expr.Call c -> new Expr.Call(c.function(), type(c.type()), c.args().stream().map(this::expr).toList());
            case Expr.Op o -> {
                List<Expr> args = o.args().stream().map(this::expr).toList();
                boolean touchesDatatype = o.type().isAbstract() || o.args().stream().anyMatch(a -> a.type().isAbstract());
                yield touchesDatatype ? datatype.lower(o, args) : new Expr.Op(o.op(), o.type(), args);
            }
        };
    }

    private ScalarType type(ScalarType t) { return t.isAbstract() ? datatype.storageType() : t; }

    private Buffer buffer(Buffer b) {
        return buffers.computeIfAbsent(b, old -> old.elementType().isAbstract() ? old.retyped(type(old.elementType())) : old);
    }

    private Local local(Local l) {
        return locals.computeIfAbsent(l, old -> old.type().isAbstract() ? new Local(old.name(), type(old.type())) : old);
    }
}
