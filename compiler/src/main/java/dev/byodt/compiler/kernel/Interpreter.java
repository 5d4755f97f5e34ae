package dev.byodt.compiler.kernel;

import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a kernel in Java on tensors, with float32 semantics for REAL and ACC, each multiply-add rounded as a
 * {@link MultiplyAdd} says. The compiler uses it to fold kernels whose inputs are all known at compile time
 * (shape computations, weight transforms), when the model is loaded and before any compile option applies, so
 * with ONNX's separate roundings; tests use it as a second executor of the same kernels, in either mode. It is a
 * tree walker, meant for small tensors, not for speed.
 */
public final class Interpreter {
    private final Map<Buffer, Tensor> tensors;
    private final MultiplyAdd multiplyAdd;
    private final Map<LoopVar, Long> loopValues = new HashMap<>();
    private final Map<Local, Object> localValues = new HashMap<>();

    private Interpreter(Map<Buffer, Tensor> tensors, MultiplyAdd multiplyAdd) {
        this.tensors = tensors;
        this.multiplyAdd = multiplyAdd;
    }

    /** Runs the kernel with ONNX's roundings (the product, then the sum); see {@link #run(Kernel, List, MultiplyAdd)}. */
    public static List<Tensor> run(Kernel kernel, List<Tensor> inputs) { return run(kernel, inputs, MultiplyAdd.SEPARATE); }

    /**
     * Runs the kernel, each multiply-add rounded as {@code multiplyAdd} says; {@code inputs} are its input tensors in
     * order (null where omitted). Returns its outputs.
     */
    public static List<Tensor> run(Kernel kernel, List<Tensor> inputs, MultiplyAdd multiplyAdd) {
        Map<Buffer, Tensor> tensors = new HashMap<>();
        for (int i = 0; i < kernel.inputs().size(); i++) {
            Buffer b = kernel.inputs().get(i);
            if (b != null && i < inputs.size() && inputs.get(i) != null) tensors.put(b, inputs.get(i));
        }
        List<Tensor> outputs = kernel.outputs().stream().map(b -> Tensor.zeros(elementTypeOf(b), b.shape())).toList();
        for (int i = 0; i < outputs.size(); i++) tensors.put(kernel.outputs().get(i), outputs.get(i));
        tensors.putAll(kernel.constants());
        for (Buffer b : kernel.scratch()) tensors.put(b, unwritten(b));
        new Interpreter(tensors, multiplyAdd).execute(kernel.body());
        return outputs;
    }

    /**
     * A scratch buffer as a kernel finds it: what other kernels left in the workspace, here NaN in every float element
     * (zeros in the others), so that a schedule that reads scratch it has not written computes NaN, where zeros would
     * pass for the padding it forgot to write.
     */
    private static Tensor unwritten(Buffer b) {
        Tensor t = Tensor.zeros(elementTypeOf(b), b.shape());
        if (t.type() == ElementType.FLOAT32) {
            for (long i = 0; i < t.elementCount(); i++) t.setFloat(i, Float.NaN);
        }
        return t;
    }

    private static ElementType elementTypeOf(Buffer b) {
        return switch (b.elementType()) {
            case REAL, ACC, F32 -> ElementType.FLOAT32;
            case I32 -> ElementType.INT32;
            case I64 -> ElementType.INT64;
            case BOOL -> ElementType.BOOL;
            default -> throw new IllegalArgumentException("the interpreter keeps no tensors of " + b.elementType());
        };
    }

    private void execute(List<Stmt> body) {
        for (Stmt s : body) execute(s);
    }

    private void execute(Stmt stmt) {
        switch (stmt) {
            case Stmt.For f -> {
                long extent = (Long) eval(f.extent());
                for (long i = 0; i < extent; i++) {
                    loopValues.put(f.var(), i);
                    execute(f.body());
                }
                loopValues.remove(f.var());
            }
            case Stmt.Store s -> {
                Tensor t = tensor(s.buffer());
                long index = (Long) eval(s.index());
                Object v = eval(s.value());
                switch (v) {
                    case Float x -> t.setFloat(index, x);
                    case Boolean b -> t.setLong(index, b ? 1 : 0);
                    default -> t.setLong(index, (Long) v);
                }
            }
            case Stmt.Assign a -> localValues.put(a.local(), eval(a.value()));
            case Stmt.Prefetch p -> { }
            case Stmt.If i -> execute(truth(eval(i.condition())) ? i.then() : i.otherwise());
        }
    }

    /** Values are Float for REAL, ACC and F32, Long for integers, Boolean for BOOL. */
    private Object eval(Expr e) {
        return switch (e) {
            case Expr.IntConst c -> c.type() == ScalarType.BOOL ? (Object) (c.value() != 0) : (Object) c.value();
            case Expr.RealConst c -> (float) c.value();
            case Expr.Var v -> loopValues.get(v.var());
            case Expr.LocalRef l -> localValues.get(l.local());
            case Expr.Load l -> {
                Tensor t = tensor(l.buffer());
                long index = (Long) eval(l.index());
                if (index < 0 || index >= t.elementCount()) {
                    throw new IndexOutOfBoundsException("index " + index + " outside " + l.buffer());
                }
                yield switch (l.type()) {
                    case I32, I64 -> t.getLong(index);
                    case BOOL -> t.getLong(index) != 0;
                    default -> t.getFloat(index);
                };
            }
            case Expr.Op o -> apply(o);
            case Expr.Call c -> throw new IllegalStateException("the interpreter runs kernels before datatype lowering, found a call to " + c.function());
        };
    }

    private Object apply(Expr.Op o) {
        List<Expr> args = o.args();
        Object[] a = new Object[args.size()];
        for (int i = 0; i < a.length; i++) a[i] = eval(args.get(i));
        return switch (o.op()) {
            case SELECT -> truth(a[0]) ? a[1] : a[2];
            case CAST -> cast(o.type(), a[0]);
            // Values here are float32s whatever their machine type, so a double's bits are not at hand: the block
            // quantizers that reinterpret bits run compiled only.
            case BITCAST -> throw new IllegalStateException("the interpreter has no bit patterns of its values");
            case AND -> truth(a[0]) && truth(a[1]);
            case OR -> truth(a[0]) || truth(a[1]);
            case NOT -> !truth(a[0]);
            case MAC -> multiplyAdd.apply((Float) a[0], (Float) a[1], (Float) a[2]);
            // Its product and sum are exact: one rounding or two give the same bits.
            case EXACT_MAC -> (Float) a[0] + (Float) a[1] * (Float) a[2];
            case DIVIDE_BY_COUNT -> (Float) a[0] / (float) (long) (Long) a[1];
            case LT, LE, GT, GE, EQ, NE -> compare(o.op(), a[0], a[1]);
            // The casts keep the boxes: "? Long : Float" would promote both to float and turn integers into floats.
            default -> a[0] instanceof Long ? (Object) integer(o.op(), a) : (Object) real(o.op(), a);
        };
    }

    private static Object cast(ScalarType to, Object v) {
        if (to == ScalarType.BOOL) return truth(v) || (v instanceof Long l && l != 0) || (v instanceof Float f && f != 0);
        double d = v instanceof Float f ? f : v instanceof Long l ? (double) l : ((Boolean) v ? 1 : 0);
        if (!to.isInteger()) return (float) d;
        if (v instanceof Long l) return to == ScalarType.I32 ? (long) l.intValue() : l;
        return to == ScalarType.I32 ? (long) (int) d : (long) d;
    }

    private static Boolean compare(ScalarOp op, Object x, Object y) {
        int c = x instanceof Boolean a ? Boolean.compare(a, (Boolean) y) : x instanceof Long a ? Long.compare(a, (Long) y) : 0;
        if (x instanceof Float a) {
            float b = (Float) y;
            // IEEE semantics: every ordered comparison with NaN is false, NE is true.
            if (Float.isNaN(a) || Float.isNaN(b)) return op == ScalarOp.NE;
            c = a < b ? -1 : a > b ? 1 : 0;
        }
        return op.holdsFor(c);
    }

    private static Long integer(ScalarOp op, Object[] a) {
        return op.onIntegers((Long) a[0], a.length > 1 ? (Long) a[1] : 0);
    }

    private static Float real(ScalarOp op, Object[] a) {
        return op.onReals((Float) a[0], a.length > 1 ? (Float) a[1] : 0);
    }

    private static boolean truth(Object v) { return v instanceof Boolean b && b; }

    private Tensor tensor(Buffer b) {
        Tensor t = tensors.get(b);
        if (t == null) throw new IllegalStateException("no tensor bound to " + b);
        return t;
    }
}
