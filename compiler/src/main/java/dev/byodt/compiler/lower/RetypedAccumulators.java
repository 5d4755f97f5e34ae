package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.byodt.compiler.kernel.Exprs.constant;

/**
 * A dot product's body with its accumulators (ACC buffers and locals, zeroed, updated by macs and read as outputs)
 * held in a machine type instead, for a branch that sums its own way ({@link DoubleSums}, {@link RegimeSums}): each
 * mac and each output as the subclass computes it, zero as that type's zero, and a select between two accumulator
 * values (a term a mask leaves out, as the training step's weight gradients skip taps in the padding) as a select
 * between their rewritten values. Anything else done with an accumulator (a nonzero start, a bias added) is marked
 * unsupported, and the kernel keeps its loops.
 */
abstract class RetypedAccumulators extends KernelRewriter {
    final Map<Buffer, Buffer> accumulators = new LinkedHashMap<>();
    private final Map<Local, Local> locals = new HashMap<>();
    private final ScalarType type;
    private final String suffix;
    boolean unsupported;

    RetypedAccumulators(ScalarType type, String suffix) {
        this.type = type;
        this.suffix = suffix;
    }

    /** acc + a * b as the branch computes it, on the rewritten accumulator and operands. */
    abstract Expr mac(Expr acc, Expr a, Expr b);

    /** The output, REAL, of the rewritten accumulator {@code acc}. */
    abstract Expr output(Expr acc);

    @Override
    public Buffer buffer(Buffer b) {
        if (b.elementType() != ScalarType.ACC) return b;
        return accumulators.computeIfAbsent(b, acc -> new Buffer(acc.name() + suffix, type, acc.shape()));
    }

    @Override
    public Local local(Local l) {
        if (l.type() != ScalarType.ACC) return l;
        return locals.computeIfAbsent(l, acc -> new Local(acc.name() + suffix, type));
    }

    @Override
    public Expr expr(Expr e) {
        if (e instanceof Expr.RealConst c && c.type() == ScalarType.ACC) {
            unsupported |= c.value() != 0;
            return constant(type, 0);
        }
        if (!(e instanceof Expr.Op o)) return rebuilt(e);
        if (o.op() == ScalarOp.MAC) return mac(expr(o.arg(0)), expr(o.arg(1)), expr(o.arg(2)));
        if (o.op() == ScalarOp.CAST && o.arg(0).type() == ScalarType.ACC && o.type() == ScalarType.REAL) return output(expr(o.arg(0)));
        if (o.op() == ScalarOp.SELECT && o.type() == ScalarType.ACC) return op(ScalarOp.SELECT, type, expr(o.arg(0)), expr(o.arg(1)), expr(o.arg(2)));
        unsupported |= o.type() == ScalarType.ACC || o.args().stream().anyMatch(a -> a.type() == ScalarType.ACC);
        return rebuilt(e);
    }

    static Expr op(ScalarOp op, ScalarType type, Expr... args) { return new Expr.Op(op, type, List.of(args)); }
}
