package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static dev.byodt.compiler.kernel.Exprs.abs;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * The largest and the least nonzero magnitudes of the two sides of a dot product kernel's products (the first
 * operands of its macs, and the second), which {@link DoubleSums} and {@link RegimeSums} check as a kernel starts:
 * decoded weights' found at compile time, activations' by loops over them ({@link #statistics}), ahead of the loops.
 */
final class OperandExtremes {
    private final Kernel kernel;
    private final DecodedOperands.Decoding decoding;
    private final Map<Buffer, MemorySegment> constants;
    private final Set<Buffer> written;
    private final List<Stmt> statistics = new ArrayList<>();
    /** Each side's, the products' first operands' then their second's. */
    private final List<Extremes> sides = new ArrayList<>();

    private OperandExtremes(Kernel kernel, DecodedOperands.Decoding decoding, Map<Buffer, MemorySegment> constants) {
        this.kernel = kernel;
        this.decoding = decoding;
        this.constants = constants;
        this.written = DecodedOperands.writtenBuffers(kernel.body());
    }

    /**
     * The extremes of both sides of the macs of {@code decoding}'s body, or empty when an operand is no load, or a load
     * of a buffer whose values cannot be known ahead (see {@link #extremes}).
     */
    static Optional<OperandExtremes> of(Kernel kernel, DecodedOperands.Decoding decoding, Map<Buffer, MemorySegment> constants) {
        List<Set<Buffer>> loaded = List.of(new LinkedHashSet<>(), new LinkedHashSet<>());
        boolean[] plain = {true};
        KernelWalker.forEachExpr(decoding.body(), e -> {
            if (!(e instanceof Expr.Op o) || o.op() != ScalarOp.MAC) return;
            for (int side = 0; side < 2; side++) {
                if (o.arg(side + 1) instanceof Expr.Load l) loaded.get(side).add(l.buffer());
                else plain[0] = false;
            }
        });
        if (!plain[0]) return Optional.empty();
        OperandExtremes found = new OperandExtremes(kernel, decoding, constants);
        for (int side = 0; side < 2; side++) {
            Optional<Extremes> e = found.extremes(loaded.get(side), side == 0 ? "a" : "b");
            if (e.isEmpty()) return Optional.empty();
            found.sides.add(e.get());
        }
        return Optional.of(found);
    }

    /** The first operands' extremes, F64 expressions. */
    Extremes a() { return sides.get(0); }

    /** The second operands' extremes. */
    Extremes b() { return sides.get(1); }

    /** The statements that find the extremes as the kernel starts, after its decoding loops. */
    List<Stmt> statistics() { return statistics; }

    /** The largest and the least nonzero magnitude of one side's operands, F64 expressions. */
    record Extremes(Expr largest, Expr least) {}

    /**
     * The extremes over the buffers {@code loaded} as one side's operands: a decoded constant's found now, the others'
     * by loops over the values they hold (a scratch buffer filled from others: over those). Empty when a buffer is
     * none of these, or a constant holds a NaN or an infinity (its sums always take the accumulator).
     */
    private Optional<Extremes> extremes(Set<Buffer> loaded, String side) {
        double[] known = {0, Double.POSITIVE_INFINITY};
        Local largest = new Local(kernel.name() + "." + side + ".largest", ScalarType.F32);
        Local least = new Local(kernel.name() + "." + side + ".least", ScalarType.F32);
        List<Stmt> loops = new ArrayList<>();
        Map<Buffer, Buffer> decodedFrom = new HashMap<>();
        decoding.copies().forEach((original, copy) -> decodedFrom.put(copy, original));
        for (Buffer y : loaded) {
            Buffer original = decodedFrom.get(y);
            if (constants.containsKey(y) && y.elementType() == ScalarType.F64) {
                MemorySegment values = constants.get(y);
                for (long i = 0; i < y.size(); i++) include(known, values.getAtIndex(ValueLayout.JAVA_DOUBLE, i));
            } else if (constants.containsKey(y) && y.elementType() == ScalarType.F32) {
                MemorySegment values = constants.get(y);
                for (long i = 0; i < y.size(); i++) include(known, values.getAtIndex(ValueLayout.JAVA_FLOAT, i));
            } else if (original != null && decoding.filledDecoded().contains(original)) {
                if (!fillSources(original, known, loops, largest, least)) return Optional.empty();
            } else if (original != null || !written.contains(y)) {
                loops.add(scan(y, largest, least));
            } else {
                return Optional.empty();
            }
        }
        if (!Double.isFinite(known[0])) return Optional.empty();
        statistics.add(new Stmt.Assign(largest, constant(ScalarType.F32, known[0])));
        statistics.add(new Stmt.Assign(least, constant(ScalarType.F32, known[1])));
        statistics.addAll(loops);
        return Optional.of(new Extremes(cast(ScalarType.F64, new Expr.LocalRef(largest)), cast(ScalarType.F64, new Expr.LocalRef(least))));
    }

    /**
     * Adds to the extremes what the kernel stores into the scratch buffer {@code filled}: constants, found now, and
     * loads of buffers it does not write, scanned whole; false when it stores anything else.
     */
    private boolean fillSources(Buffer filled, double[] known, List<Stmt> loops, Local largest, Local least) {
        Set<Buffer> sources = new LinkedHashSet<>();
        boolean[] plain = {true};
        new KernelRewriter() {
            @Override
            public List<Stmt> stmt(Stmt s) {
                if (s instanceof Stmt.Store store && store.buffer() == filled) {
                    switch (store.value()) {
                        case Expr.RealConst c -> include(known, c.value());
                        case Expr.Load l when !written.contains(l.buffer()) -> sources.add(l.buffer());
                        default -> plain[0] = false;
                    }
                }
                return super.stmt(s);
            }
        }.body(kernel.body());
        sources.forEach(source -> loops.add(scan(source, largest, least)));
        return plain[0];
    }

    private static void include(double[] known, double value) {
        double magnitude = Math.abs(value);
        known[0] = Double.isNaN(magnitude) ? Double.NaN : Math.max(known[0], magnitude);
        if (magnitude != 0) known[1] = Math.min(known[1], magnitude);
    }

    /** A loop over {@code buffer} taking its largest and least nonzero magnitudes into the two locals (a NaN into both). */
    private static Stmt scan(Buffer buffer, Local largest, Local least) {
        LoopVar i = new LoopVar(buffer.name() + ".extremes.i");
        Local magnitude = new Local(buffer.name() + ".magnitude", ScalarType.F32);
        Expr m = new Expr.LocalRef(magnitude);
        return new Stmt.For(i, idx(buffer.size()), List.of(
            new Stmt.Assign(magnitude, abs(cast(ScalarType.F32, new Expr.Load(buffer, new Expr.Var(i))))),
            new Stmt.Assign(largest, max(new Expr.LocalRef(largest), m)),
            new Stmt.Assign(least, min(new Expr.LocalRef(least), select(eq(m, constant(ScalarType.F32, 0)),
                constant(ScalarType.F32, Double.POSITIVE_INFINITY), m)))));
    }
}
