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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.abs;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * The largest and the least nonzero magnitudes of the two sides of a dot product kernel's products (the first
 * operands of its macs, and the second), which {@link DoubleSums} and {@link RegimeSums} check as a kernel starts:
 * decoded weights' found at compile time, activations' by loops over them ({@link #statistics}), ahead of the loops.
 * Where the kernel's products pair items ({@link DotProductKernels#pairedItems}), the loops over those tensors also
 * take each item's least, and the least a product can have is the least over the items of the two sides' leasts.
 */
final class OperandExtremes {
    private final Kernel kernel;
    private final DecodedOperands.Decoding decoding;
    private final Map<Buffer, MemorySegment> constants;
    private final Set<Buffer> written;
    private final List<Stmt> statistics = new ArrayList<>();
    /** Each side's, the products' first operands' then their second's. */
    private final List<Extremes> sides = new ArrayList<>();
    /** The items the products pair, if they do, and the tensors (and their decoded copies) whose first axis those are. */
    private final OptionalLong items;
    private final Set<Buffer> itemTensors = new HashSet<>();
    /** Each side's least of its items' tensors, item by item (F32, one per item), or null where it reads none of them. */
    private final Buffer[] itemLeasts = new Buffer[2];
    private final Local[] leasts = new Local[2];
    /** The scans' lanes of partial extremes. */
    private final List<Buffer> laneScratch = new ArrayList<>();
    private Expr leastProduct;

    private OperandExtremes(Kernel kernel, DecodedOperands.Decoding decoding, Map<Buffer, MemorySegment> constants) {
        this.kernel = kernel;
        this.decoding = decoding;
        this.constants = constants;
        this.written = DecodedOperands.writtenBuffers(kernel.body());
        this.items = DotProductKernels.pairedItems(kernel);
        if (items.isPresent()) {
            for (Buffer tensor : List.of(kernel.inputs().get(0), kernel.inputs().getLast())) {
                itemTensors.add(tensor);
                if (decoding.copies().containsKey(tensor)) itemTensors.add(decoding.copies().get(tensor));
            }
        }
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
            Optional<Extremes> e = found.extremes(loaded.get(side), side);
            if (e.isEmpty()) return Optional.empty();
            found.sides.add(e.get());
        }
        found.leastProduct = found.itemLeasts[0] == null && found.itemLeasts[1] == null
            ? mul(found.a().least(), found.b().least()) : found.leastOfItemProducts();
        return Optional.of(found);
    }

    /** The first operands' extremes, F64 expressions. */
    Extremes a() { return sides.get(0); }

    /** The second operands' extremes. */
    Extremes b() { return sides.get(1); }

    /** The statements that find the extremes as the kernel starts, after its decoding loops. */
    List<Stmt> statistics() { return statistics; }

    /** The least magnitude a nonzero product of the kernel can have, as far as the extremes tell: an F64 expression. */
    Expr leastProduct() { return leastProduct; }

    /** The scratch buffers the statistics fill (the scans' lanes, the items' leasts). */
    List<Buffer> scratch() {
        List<Buffer> scratch = new ArrayList<>(laneScratch);
        Arrays.stream(itemLeasts).filter(Objects::nonNull).forEach(scratch::add);
        return scratch;
    }

    /**
     * min over the items b of least_a(b) least_b(b), each side's least of item b being its least over the item's
     * tensors' item b and over its other operands (which every item's products may meet); exact in double. Then each
     * side's least takes in its items', so that {@link Extremes#least} is the whole side's.
     */
    private Expr leastOfItemProducts() {
        Local least = new Local(kernel.name() + ".least.product", ScalarType.F64);
        LoopVar item = new LoopVar(kernel.name() + ".least.product.item");
        LoopVar taken = new LoopVar(kernel.name() + ".least.taken.item");
        Expr[] sideLeasts = new Expr[2];
        List<Stmt> sidesTakeItems = new ArrayList<>();
        for (int side = 0; side < 2; side++) {
            Expr others = new Expr.LocalRef(leasts[side]);
            if (itemLeasts[side] == null) {
                sideLeasts[side] = cast(ScalarType.F64, others);
                continue;
            }
            sideLeasts[side] = cast(ScalarType.F64, min(others, new Expr.Load(itemLeasts[side], new Expr.Var(item))));
            sidesTakeItems.add(new Stmt.Assign(leasts[side], min(others, new Expr.Load(itemLeasts[side], new Expr.Var(taken)))));
        }
        statistics.add(new Stmt.Assign(least, constant(ScalarType.F64, Double.POSITIVE_INFINITY)));
        statistics.add(new Stmt.For(item, idx(items.getAsLong()), List.of(
            new Stmt.Assign(least, min(new Expr.LocalRef(least), mul(sideLeasts[0], sideLeasts[1]))))));
        statistics.add(new Stmt.For(taken, idx(items.getAsLong()), sidesTakeItems));
        return new Expr.LocalRef(least);
    }

    /** The largest and the least nonzero magnitude of one side's operands, F64 expressions. */
    record Extremes(Expr largest, Expr least) {}

    /**
     * The extremes over the buffers {@code loaded} as one side's operands: a decoded constant's found now, the others'
     * by loops over the values they hold (a scratch buffer filled from others: over those). Empty when a buffer is
     * none of these, or a constant holds a NaN or an infinity (its sums always take the accumulator).
     */
    private Optional<Extremes> extremes(Set<Buffer> loaded, int side) {
        String name = side == 0 ? "a" : "b";
        double[] known = {0, Double.POSITIVE_INFINITY};
        Local largest = new Local(kernel.name() + "." + name + ".largest", ScalarType.F32);
        Local least = new Local(kernel.name() + "." + name + ".least", ScalarType.F32);
        leasts[side] = least;
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
                if (!fillSources(original, known, loops, largest, least, side)) return Optional.empty();
            } else if (original != null || !written.contains(y)) {
                loops.addAll(scan(y, largest, least, side));
            } else {
                return Optional.empty();
            }
        }
        if (!Double.isFinite(known[0])) return Optional.empty();
        if (known[0] == 0 && known[1] == Double.POSITIVE_INFINITY) {
            statistics.add(new Stmt.Assign(largest, constant(ScalarType.F32, known[0])));
            statistics.add(new Stmt.Assign(least, constant(ScalarType.F32, known[1])));
        } else {
            Buffer found = knownExtremes(name, known);
            statistics.add(new Stmt.Assign(largest, new Expr.Load(found, idx(0))));
            statistics.add(new Stmt.Assign(least, new Expr.Load(found, idx(1))));
        }
        statistics.addAll(loops);
        return Optional.of(new Extremes(cast(ScalarType.F64, new Expr.LocalRef(largest)), cast(ScalarType.F64, new Expr.LocalRef(least))));
    }

    /**
     * Adds to the extremes what the kernel stores into the scratch buffer {@code filled}: constants, found now, and
     * loads of buffers it does not write, scanned whole; false when it stores anything else.
     */
    private boolean fillSources(Buffer filled, double[] known, List<Stmt> loops, Local largest, Local least, int side) {
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
        sources.forEach(source -> loops.addAll(scan(source, largest, least, side)));
        return plain[0];
    }

    /**
     * The extremes found at compile time, {@code known}, as a constant of the program that the kernel loads, not as
     * literals in its code: kernels that differ only in their weights are then the same code, which the code
     * generator emits once (mobilenet_v2 in posit8: 51 functions for its 68 dot-product kernels, not 68).
     */
    private Buffer knownExtremes(String side, double[] known) {
        Buffer found = new Buffer(kernel.name() + "." + side + ".known.extremes", ScalarType.F32, new long[] {2});
        MemorySegment values = Arena.ofAuto().allocate(2 * Float.BYTES, 64);
        values.setAtIndex(ValueLayout.JAVA_FLOAT, 0, (float) known[0]);
        values.setAtIndex(ValueLayout.JAVA_FLOAT, 1, (float) known[1]);
        constants.put(found, values);
        return found;
    }

    private static void include(double[] known, double value) {
        double magnitude = Math.abs(value);
        known[0] = Double.isNaN(magnitude) ? Double.NaN : Math.max(known[0], magnitude);
        if (magnitude != 0) known[1] = Math.min(known[1], magnitude);
    }

    /** Lanes of the scans' partial extremes: a multiple of every vector width, so that a scan's loop over lanes vectorizes. */
    private static final int LANES = 16;

    /**
     * Loops over {@code buffer} taking its largest and least nonzero magnitudes into the two locals (a NaN into both);
     * over one of the tensors whose items the products pair, the least goes item by item into the side's leasts
     * instead (zeroed to +inf by the side's first such loop). Each scan runs over {@link #LANES} lanes of partial
     * extremes, element i in lane i mod LANES, and folds the lanes afterwards: the loop over lanes is elementwise and
     * vectorizes, where one running extreme would be a reduction of llvm.maximum and llvm.minimum, which LLVM does
     * not vectorize (nor a store of an item's least in the loop). Extremes are exact in any order, NaN included.
     */
    private List<Stmt> scan(Buffer buffer, Local largest, Local least, int side) {
        // Named by side too: a buffer both sides read is scanned once for each.
        Buffer lanes = new Buffer(buffer.name() + ".extremes." + (side == 0 ? "a" : "b") + ".lanes", ScalarType.F32,
            new long[] {2, LANES});
        laneScratch.add(lanes);
        List<Stmt> loops = new ArrayList<>();
        loops.add(forLanes(buffer.name() + ".extremes.start", j -> List.of(new Stmt.Store(lanes, j, constant(ScalarType.F32, 0)))));
        if (itemTensors.contains(buffer)) {
            if (itemLeasts[side] == null) {
                itemLeasts[side] = new Buffer(kernel.name() + "." + (side == 0 ? "a" : "b") + ".item.least", ScalarType.F32,
                    new long[] {items.getAsLong()});
                LoopVar item = new LoopVar(itemLeasts[side].name() + ".i");
                loops.add(new Stmt.For(item, idx(items.getAsLong()), List.of(
                    new Stmt.Store(itemLeasts[side], new Expr.Var(item), constant(ScalarType.F32, Double.POSITIVE_INFINITY)))));
            }
            Buffer itemLeast = itemLeasts[side];
            LoopVar item = new LoopVar(buffer.name() + ".extremes.item");
            Expr at = new Expr.Var(item);
            long itemSize = buffer.size() / items.getAsLong();
            loops.add(new Stmt.For(item, idx(items.getAsLong()), scanRange(buffer, lanes, mul(at, itemSize), itemSize,
                j -> new Stmt.Store(itemLeast, at, min(new Expr.Load(itemLeast, at), j)))));
        } else {
            loops.addAll(scanRange(buffer, lanes, idx(0), buffer.size(), j -> new Stmt.Assign(least, min(new Expr.LocalRef(least), j))));
        }
        loops.add(forLanes(buffer.name() + ".extremes.largest", j ->
            List.of(new Stmt.Assign(largest, max(new Expr.LocalRef(largest), new Expr.Load(lanes, j))))));
        return loops;
    }

    /**
     * The loops taking {@code count} elements of {@code buffer} from {@code start} into the lanes (row 0 the largest,
     * row 1 the least, which starts at +inf), then each lane's least to {@code takeLeast}.
     */
    private static List<Stmt> scanRange(Buffer buffer, Buffer lanes, Expr start, long count,
                                        Function<Expr, Stmt> takeLeast) {
        String name = buffer.name() + ".extremes";
        List<Stmt> loops = new ArrayList<>();
        loops.add(forLanes(name + ".reset", j -> List.of(
            new Stmt.Store(lanes, add(j, LANES), constant(ScalarType.F32, Double.POSITIVE_INFINITY)))));
        LoopVar block = new LoopVar(name + ".block");
        loops.add(new Stmt.For(block, idx(count / LANES), List.of(forLanes(name + ".lane", j ->
            taken(buffer, lanes, add(start, add(mul(new Expr.Var(block), LANES), j)), j)))));
        if (count % LANES != 0) {
            LoopVar rest = new LoopVar(name + ".rest");
            Expr j = new Expr.Var(rest);
            loops.add(new Stmt.For(rest, idx(count % LANES), taken(buffer, lanes, add(start, add(j, count / LANES * LANES)), j)));
        }
        loops.add(forLanes(name + ".least", j -> List.of(takeLeast.apply(new Expr.Load(lanes, add(j, LANES))))));
        return loops;
    }

    /** Element {@code at} of {@code buffer} taken into lane {@code lane}'s largest and least nonzero magnitude. */
    private static List<Stmt> taken(Buffer buffer, Buffer lanes, Expr at, Expr lane) {
        Expr magnitude = abs(cast(ScalarType.F32, new Expr.Load(buffer, at)));
        Expr nonzero = select(eq(magnitude, constant(ScalarType.F32, 0)), constant(ScalarType.F32, Double.POSITIVE_INFINITY), magnitude);
        Expr leastLane = add(lane, LANES);
        return List.of(
            new Stmt.Store(lanes, lane, max(new Expr.Load(lanes, lane), magnitude)),
            new Stmt.Store(lanes, leastLane, min(new Expr.Load(lanes, leastLane), nonzero)));
    }

    private static Stmt forLanes(String name, Function<Expr, List<Stmt>> body) {
        LoopVar j = new LoopVar(name + ".j");
        return new Stmt.For(j, idx(LANES), body.apply(new Expr.Var(j)));
    }
}
