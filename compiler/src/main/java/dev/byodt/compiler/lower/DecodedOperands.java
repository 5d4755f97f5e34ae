package dev.byodt.compiler.lower;

import dev.byodt.compiler.dtype.Datatype;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.idx;

/**
 * Decodes the operands of dot products once per tensor instead of once per product, in the kernels whose
 * datatype multiplies decoded operands ({@link Datatype#multipliesDecodedOperands}: --accumulate float32, and dtype
 * where the sums run in float32 registers, every product multiplying the to_f32 values of its operands). In the kernels of
 * {@link DotProductKernels} (MatMul, Gemm, Conv, ConvTranspose and their gradients), where each element of an operand
 * meets many others, every operand of a mac that loads a REAL
 * buffer loads a float32 copy of it instead:
 * <ul>
 *   <li>a constant (weights) is decoded at compile time, into a constant of its own;</li>
 *   <li>a scratch buffer the kernel fills and reads only as such operands (the padded planes of a convolution)
 *       is filled with the decoded values;</li>
 *   <li>any other buffer (an activation) is decoded by a loop ahead of the kernel's loops into a scratch buffer,
 *       which the memory plan places like every scratch buffer.</li>
 * </ul>
 * Each product multiplies the same float32 values as before, in the same order, so the results keep every
 * bit; the loops become float32 multiplies and adds, which vectorize. With --accumulate exact, where the datatype's
 * sums may run in double, the decoded kernel is the fast branch of {@link DoubleSums}. Runs before {@link DatatypeLowering}.
 */
public final class DecodedOperands {
    private final Map<Buffer, MemorySegment> constants;
    /** The decoded copy of each constant, per datatype (two kernels in one datatype share it). */
    private final Map<Datatype, Map<Buffer, Buffer>> decodedConstants = new HashMap<>();

    private DecodedOperands(Program program) {
        this.constants = new LinkedHashMap<>(program.constants());
    }

    /** The plan with the operands of its dot products decoded once per tensor where the kernels' datatypes allow it. */
    public static DatatypePlan apply(DatatypePlan plan) {
        Program p = plan.program();
        DecodedOperands pass = new DecodedOperands(p);
        List<Kernel> kernels = new ArrayList<>();
        for (int k = 0; k < p.kernels().size(); k++) {
            Kernel kernel = p.kernels().get(k);
            Datatype d = plan.datatypeOf(k);
            kernels.add(DotProductKernels.contains(kernel) ? pass.decodedIfUseful(kernel, d) : kernel);
        }
        // A constant that only products read is now read decoded: it need not be kept as well.
        Set<Buffer> loaded = new HashSet<>();
        kernels.forEach(k -> loaded.addAll(k.loadedBuffers()));
        pass.constants.keySet().retainAll(loaded);
        Program decoded = new Program(p.name(), kernels, p.inputs(), p.inputSpecs(), p.outputs(), p.outputSpecs(),
            pass.constants, p.temporaries());
        return new DatatypePlan(decoded, plan.kernelDatatypes(), plan.boundary());
    }

    /**
     * The kernel reading decoded operands where its datatype multiplies them (rounding within the posit's scales
     * where its operands allow, {@link RegimeSums}), or, not a gradient, summing in double where its exact sums may
     * ({@link DoubleSums}); else the kernel as it is.
     */
    private Kernel decodedIfUseful(Kernel kernel, Datatype datatype) {
        if (datatype.multipliesDecodedOperands()) {
            Decoding d = decoding(kernel, datatype);
            if (d.copies().isEmpty()) return kernel;
            Optional<Kernel> withinScales = datatype.roundingWithinScales().flatMap(r -> RegimeSums.of(kernel, d, r, constants));
            if (withinScales.isPresent()) return withinScales.get();
            List<Stmt> body = new ArrayList<>(d.loops());
            body.addAll(d.body());
            return new Kernel(kernel.name(), kernel.opType(), kernel.inputs(), kernel.outputs(), d.scratch(), kernel.constants(), body);
        }
        OptionalInt bits = datatype.exactSumSignificandBits();
        // Gradients keep their exact accumulator: their sums in double are not yet checked against a reference.
        if (bits.isEmpty() || DotProductKernels.isGradient(kernel)) return kernel;
        return DoubleSums.of(kernel, decoding(kernel, datatype), bits.getAsInt(), constants).orElse(kernel);
    }

    /**
     * A kernel's operands decoded: the loops that decode activations ahead of the kernel's loops, the kernel's
     * body reading the decoded copies, its scratch buffers with the copies, each copy by the buffer it decodes,
     * and the scratch buffers the body fills with decoded values.
     */
    record Decoding(List<Stmt> loops, List<Stmt> body, List<Buffer> scratch, Map<Buffer, Buffer> copies, Set<Buffer> filledDecoded) {}

    private Decoding decoding(Kernel kernel, Datatype datatype) {
        Set<Buffer> operands = new LinkedHashSet<>();
        Map<Buffer, Integer> loads = new HashMap<>(), operandLoads = new HashMap<>();
        KernelWalker.forEachExpr(kernel.body(), e -> {
            if (e instanceof Expr.Load l) loads.merge(l.buffer(), 1, Integer::sum);
            for (Expr.Load l : realLoadOperands(e)) {
                operands.add(l.buffer());
                operandLoads.merge(l.buffer(), 1, Integer::sum);
            }
        });
        Set<Buffer> written = writtenBuffers(kernel.body());
        Map<Buffer, Buffer> copies = new HashMap<>();
        Set<Buffer> filledDecoded = new HashSet<>();
        List<Buffer> scratch = new ArrayList<>(kernel.scratch());
        List<Stmt> decodeLoops = new ArrayList<>();
        for (Buffer b : operands) {
            if (written.contains(b)) {
                if (kernel.scratch().contains(b) && loads.get(b).equals(operandLoads.get(b))) {
                    Buffer copy = new Buffer(b.name() + ".decoded", ScalarType.F32, b.shape());
                    scratch.set(scratch.indexOf(b), copy);
                    copies.put(b, copy);
                    filledDecoded.add(b);
                }
                continue;
            }
            Optional<Buffer> constant = constants.containsKey(b) ? decodedConstant(b, datatype) : Optional.empty();
            if (constant.isPresent()) {
                copies.put(b, constant.get());
                continue;
            }
            Buffer copy = new Buffer(kernel.name() + "." + b.name() + ".decoded", ScalarType.F32, b.shape());
            scratch.add(copy);
            copies.put(b, copy);
            LoopVar i = new LoopVar(copy.name() + ".i");
            Expr at = new Expr.Var(i);
            decodeLoops.add(new Stmt.For(i, idx(b.size()), List.of(
                new Stmt.Store(copy, at, cast(ScalarType.F32, new Expr.Load(b, at))))));
        }
        return new Decoding(decodeLoops, new Rewriter(copies, filledDecoded).body(kernel.body()), scratch, copies, filledDecoded);
    }

    /** The float32 copy of the constant {@code b} in {@code datatype}, when its to_f32 runs at compile time. */
    private Optional<Buffer> decodedConstant(Buffer b, Datatype datatype) {
        Map<Buffer, Buffer> ofDatatype = decodedConstants.computeIfAbsent(datatype, d -> new HashMap<>());
        Buffer known = ofDatatype.get(b);
        if (known != null) return Optional.of(known);
        return datatype.decodedWeights(constants.get(b), b.name()).map(values -> {
            Buffer copy = new Buffer(b.name() + ".decoded", ScalarType.F32, b.shape());
            constants.put(copy, values);
            ofDatatype.put(b, copy);
            return copy;
        });
    }

    /** The operands of {@code e}, when it is a mac, that load a REAL buffer. */
    private static List<Expr.Load> realLoadOperands(Expr e) {
        if (!(e instanceof Expr.Op o) || o.op() != ScalarOp.MAC) return List.of();
        List<Expr.Load> found = new ArrayList<>();
        for (Expr operand : o.args().subList(1, 3)) {
            if (operand instanceof Expr.Load l && l.type() == ScalarType.REAL) found.add(l);
        }
        return found;
    }

    static Set<Buffer> writtenBuffers(List<Stmt> body) {
        Set<Buffer> written = new HashSet<>();
        new KernelRewriter() {
            @Override
            public List<Stmt> stmt(Stmt s) {
                if (s instanceof Stmt.Store store) written.add(store.buffer());
                return super.stmt(s);
            }
        }.body(body);
        return written;
    }

    /** Points the operands of macs, and prefetches, at the decoded copies, and fills the scratch buffers decoded. */
    private static final class Rewriter extends KernelRewriter {
        private final Map<Buffer, Buffer> copies;
        private final Set<Buffer> filledDecoded;

        Rewriter(Map<Buffer, Buffer> copies, Set<Buffer> filledDecoded) {
            this.copies = copies;
            this.filledDecoded = filledDecoded;
        }

        @Override
        public List<Stmt> stmt(Stmt s) {
            if (s instanceof Stmt.Store store && filledDecoded.contains(store.buffer())) {
                return List.of(new Stmt.Store(copies.get(store.buffer()), expr(store.index()),
                    cast(ScalarType.F32, expr(store.value()))));
            }
            // A prefetch goes where the loads it prepares now read.
            if (s instanceof Stmt.Prefetch p && copies.containsKey(p.buffer())) {
                return List.of(new Stmt.Prefetch(copies.get(p.buffer()), expr(p.index())));
            }
            return super.stmt(s);
        }

        @Override
        public Expr expr(Expr e) {
            if (!(e instanceof Expr.Op o) || o.op() != ScalarOp.MAC) return rebuilt(e);
            List<Expr> args = new ArrayList<>(List.of(expr(o.arg(0))));
            for (Expr operand : o.args().subList(1, 3)) {
                args.add(operand instanceof Expr.Load l && copies.containsKey(l.buffer())
                    ? new Expr.Load(copies.get(l.buffer()), expr(l.index())) : expr(operand));
            }
            return new Expr.Op(o.op(), o.type(), args);
        }
    }
}
