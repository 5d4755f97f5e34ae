package dev.byodt.compiler.lower;

import dev.byodt.compiler.dtype.CallItems;
import dev.byodt.compiler.dtype.Datatype;
import dev.byodt.compiler.dtype.LoweringLog;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Rewrites a program for its datatypes (one per kernel, see {@link DatatypePlan}): REAL and ACC become the
 * kernel's datatype's storage and accumulator types in buffers, locals and expressions, real constants become
 * machine constants, weights are converted to the storage, and every operation touching a REAL or ACC value
 * becomes what the datatype says (machine operations or library calls). Afterwards the program contains
 * machine types only, which is all code generation understands; its constants live in the program as bytes
 * (the lowered kernels carry none).
 */
public final class DatatypeLowering extends KernelRewriter {
    private final DatatypePlan plan;
    private final LoweringLog log;
    private final Map<Buffer, Datatype> datatypeOfBuffer = new HashMap<>();
    private final Map<Buffer, Buffer> buffers = new HashMap<>();
    private final Map<Local, Local> locals = new HashMap<>();
    private Datatype datatype;
    /** The items of a call of a graph's program, whose copies in a constant round alike; none for other programs. */
    private final Optional<CallItems> items;

    private DatatypeLowering(DatatypePlan plan, LoweringLog log, Optional<CallItems> items) {
        this.plan = plan;
        this.log = log;
        this.items = items;
    }

    /** Lowers a program all in one datatype. */
    public static Program lower(Program program, Datatype datatype) {
        return lower(DatatypePlan.uniform(program, datatype), new LoweringLog());
    }

    /** Lowers each kernel in its planned datatype; operations without a lowering go to {@code log}. */
    public static Program lower(DatatypePlan plan, LoweringLog log) {
        return lower(plan, log, Optional.empty());
    }

    /** As {@link #lower(DatatypePlan, LoweringLog)}, for a graph's program whose calls hold {@code items}. */
    public static Program lower(DatatypePlan plan, LoweringLog log, Optional<CallItems> items) {
        return new DatatypeLowering(plan, log, items).lower();
    }

    private Program lower() {
        Program p = plan.program();
        for (int k = 0; k < p.kernels().size(); k++) {
            Kernel kernel = p.kernels().get(k);
            Datatype d = plan.datatypeOf(k);
            kernel.outputs().forEach(b -> datatypeOfBuffer.put(b, d));
            kernel.scratch().forEach(b -> datatypeOfBuffer.put(b, d));
            kernel.constants().keySet().forEach(b -> datatypeOfBuffer.put(b, d));
            kernel.loadedBuffers().forEach(b -> datatypeOfBuffer.putIfAbsent(b, d));
        }
        List<Kernel> kernels = new java.util.ArrayList<>();
        for (int k = 0; k < p.kernels().size(); k++) {
            datatype = plan.datatypeOf(k);
            log.enterKernel(p.kernels().get(k));
            kernels.add(kernel(p.kernels().get(k)));
        }
        Map<Buffer, MemorySegment> constants = new LinkedHashMap<>();
        p.constants().forEach((b, bytes) -> constants.put(buffer(b), b.elementType() == ScalarType.REAL ? converted(b, bytes) : bytes));
        return new Program(p.name(), kernels, p.inputs().stream().map(this::buffer).toList(), p.inputSpecs(),
            p.outputs().stream().map(this::buffer).toList(), p.outputSpecs(), constants,
            p.temporaries().stream().map(this::buffer).toList());
    }

    /**
     * A constant tensor in its datatype. One that holds a copy per item of the call (a class token expanded over the
     * batch and folded at import) rounds each copy as the first, so an item gets the copy a call of one item has:
     * stochastic rounding's bits do not depend on the batch (CallItems).
     */
    private MemorySegment converted(Buffer b, MemorySegment bytes) {
        Datatype d = datatypeOf(b);
        if (items.isEmpty() || !items.get().repeatsOverItems(b.shape(), bytes)) return d.convertWeights(bytes, b.name());
        long perCall = items.get().perCall();
        MemorySegment one = d.convertWeights(bytes.asSlice(0, bytes.byteSize() / perCall), b.name());
        MemorySegment all = Arena.ofAuto().allocate(Math.max(1, one.byteSize() * perCall), 64).asSlice(0, one.byteSize() * perCall);
        for (long i = 0; i < perCall; i++) all.asSlice(i * one.byteSize(), one.byteSize()).copyFrom(one);
        return all;
    }

    private Kernel kernel(Kernel k) {
        // Omitted optional inputs stay null (Stream.toList accepts nulls).
        List<Buffer> inputs = k.inputs().stream().map(b -> b == null ? null : buffer(b)).toList();
        return new Kernel(k.name(), k.opType(), inputs, k.outputs().stream().map(this::buffer).toList(),
            k.scratch().stream().map(this::buffer).toList(), Map.of(), body(k.body()));
    }

    @Override
    public Expr expr(Expr e) {
        return switch (e) {
            case Expr.RealConst c -> switch (c.type()) {
                case REAL -> datatype.constant(c.value());
                case ACC -> datatype.accumulatorConstant(c.value());
                default -> c;
            };
            case Expr.Call c -> new Expr.Call(c.function(), type(datatype, c.type()), args(c.args()), c.passing());
            case Expr.Op o -> {
                List<Expr> args = args(o.args());
                boolean touchesDatatype = o.type().isAbstract() || o.args().stream().anyMatch(a -> a.type().isAbstract());
                yield touchesDatatype ? datatype.lower(o, args) : new Expr.Op(o.op(), o.type(), args);
            }
            default -> rebuilt(e);
        };
    }

    private static ScalarType type(Datatype d, ScalarType t) {
        return switch (t) {
            case REAL -> d.storageType();
            case ACC -> d.accumulatorType();
            default -> t;
        };
    }

    private Datatype datatypeOf(Buffer b) {
        return datatypeOfBuffer.getOrDefault(b, plan.boundary());
    }

    @Override
    public Buffer buffer(Buffer b) {
        return buffers.computeIfAbsent(b, old -> old.elementType().isAbstract() ? old.retyped(type(datatypeOf(old), old.elementType())) : old);
    }

    @Override
    public Local local(Local l) {
        return locals.computeIfAbsent(l, old -> old.type().isAbstract() ? new Local(old.name(), type(datatype, old.type())) : old);
    }
}
