package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.compiler.lower.LibraryFunction;
import dev.byodt.compiler.lower.Program;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Packs element-wise loops into 16- or 8-bit lanes for the RISC-V P extension. An innermost loop over {@code i}
 * whose body is one store {@code out[c + i] = f(x, y)} (or {@code f(x)}), f one of the P library's operations
 * on one value and x, y loads of adjacent elements ({@code buf[c' + i]}), loads that do not depend on {@code i}
 * (broadcasting), constants or further such operations, becomes a loop over groups of L elements: adjacent
 * elements loaded as one word of L lanes (a load of a {@link Buffer#view} of the buffer), broadcast values and
 * constants packed L times (the pack function for L lanes), one packed operation per f, the word stored at once;
 * then the last {@code extent % L} elements one at a time as before.
 * <p>
 * A loop packs only where every word it loads or stores is aligned: each group starts at a multiple of L
 * elements, whatever the other loops' values, of a buffer in the workspace or the weights (64-byte aligned;
 * the caller's tensors have no alignment byodt could rely on). L is the register's lane count, or the lanes
 * of a 32-bit word where the loop's offsets are multiples of those but not of the register's (16-bit lanes:
 * 4 or 2, 8-bit lanes: 8 or 4). Lanes are computed independently, so the results are those
 * of the loop it replaces, bit for bit; even where the loop reads the buffer it stores to, since offsets that
 * are multiples of L put every element an earlier iteration stored in an earlier group, stored already.
 * <p>
 * An int32 constant in a call (a multiply's fraction bits) is a parameter the lanes share and stays as it is.
 * Where the loop multiplies (a row of accumulators taking one term of each of its dot products), a load that is
 * no aligned word is gathered instead: its L elements loaded one at a time and packed.
 */
final class PackedLanes {
    private final Map<String, IntFunction<LibraryFunction>> packedForms;
    private final IntFunction<LibraryFunction> pack;
    private final Set<String> gatheringForms;
    private final int laneBits;
    private final ScalarType laneType;
    private final int lanes;

    /**
     * @param packedForms each one-value function with a packed form, by name ({@code byodt_p16_max}), and its
     *                    form for L lanes ({@code byodt_p16x4_max} for 4)
     * @param pack        the function that packs L values into a word, for L lanes
     * @param laneBits    the elements' width: 16 or 8
     * @param lanes       lanes per register, a 32- or 64-bit word: 2 or 4 of 16 bits, 4 or 8 of 8 bits
     */
    PackedLanes(Map<String, IntFunction<LibraryFunction>> packedForms, IntFunction<LibraryFunction> pack, int laneBits, int lanes) {
        this(packedForms, pack, Set.of(), laneBits, lanes);
    }

    /**
     * As above, and where a loop's value calls one of {@code gatheringForms} (by name: the multiplies, whose
     * packed form saves far more than a few loads cost), the elements of a load that are not an aligned word
     * (Conv's windows on a padded plane, which start at every column) are loaded one by one and packed.
     */
    PackedLanes(Map<String, IntFunction<LibraryFunction>> packedForms, IntFunction<LibraryFunction> pack, Set<String> gatheringForms,
                int laneBits, int lanes) {
        if (laneBits != 16 && laneBits != 8) throw new IllegalArgumentException("16- or 8-bit lanes, not " + laneBits);
        if (lanes * laneBits != 32 && lanes * laneBits != 64) {
            throw new IllegalArgumentException(lanes + " lanes of " + laneBits + " bits fill no 32- or 64-bit word");
        }
        this.packedForms = Map.copyOf(packedForms);
        this.pack = pack;
        this.gatheringForms = Set.copyOf(gatheringForms);
        this.laneBits = laneBits;
        this.laneType = ScalarType.integerOfBits(laneBits);
        this.lanes = lanes;
    }

    Program apply(Program program) {
        Set<Buffer> callers = new HashSet<>(program.inputs());
        callers.addAll(program.outputs());
        return program.withKernelBodies(body -> rewrite(body, callers));
    }

    /** {@code body} packed, where {@code callers} are the buffers in the caller's memory (none of them aligned). */
    List<Stmt> rewrite(List<Stmt> body, Set<Buffer> callers) {
        return new KernelRewriter() {
            @Override
            public List<Stmt> stmt(Stmt s) {
                if (s instanceof Stmt.For f) {
                    int l = lanesFor(f, callers);
                    if (l > 0) return packed(f, (Stmt.Store) f.body().getFirst(), l, callers);
                }
                return List.of(rebuilt(s));
            }
        }.body(body);
    }

    /** The lanes to pack loop {@code f} into, or 0 when it does not pack. */
    private int lanesFor(Stmt.For f, Set<Buffer> callers) {
        if (!(f.extent() instanceof Expr.IntConst extent) || f.body().size() != 1
            || !(f.body().getFirst() instanceof Stmt.Store store) || !(store.value() instanceof Expr.Call)) return 0;
        boolean gathers = calls(store.value(), gatheringForms);
        for (int l = lanes; l * laneBits >= 32; l /= 2) {
            if (extent.value() >= l && isGroup(store.buffer(), store.index(), f.var(), l, callers)
                && packs(store.value(), store.buffer(), f.var(), l, callers, gathers)) return l;
        }
        return 0;
    }

    private static boolean calls(Expr e, Set<String> functions) {
        boolean[] found = {false};
        KernelWalker.visit(e, x -> found[0] |= x instanceof Expr.Call c && functions.contains(c.function()));
        return found[0];
    }

    /**
     * A tree of packable operations over adjacent loads, broadcast loads and constants. A broadcast load of
     * the buffer being stored ({@code stored}) does not pack: the group would read the element once, before
     * its own store may change it; nor does a gathered one ({@code gathers}), which may read elements that
     * earlier lanes of its group store.
     */
    private boolean packs(Expr e, Buffer stored, LoopVar i, int l, Set<Buffer> callers, boolean gathers) {
        return switch (e) {
            case Expr.Call c -> c.passing() == Expr.Call.Passing.BY_VALUE && packedForms.containsKey(c.function())
                && c.args().stream().allMatch(a -> packs(a, stored, i, l, callers, gathers));
            case Expr.Load load -> load.type() == laneType
                && (!LoopIndices.uses(load.index(), i) ? load.buffer() != stored
                    : isGroup(load.buffer(), load.index(), i, l, callers) || gathers && load.buffer() != stored);
            case Expr.IntConst c -> c.type() == laneType || isParameter(c);
            default -> false;
        };
    }

    /**
     * A constant wider than a lane in a call (a multiply's fraction bits, an int32): not a lane value but a
     * parameter that every lane shares, passed to the packed form as it is.
     */
    private static boolean isParameter(Expr e) { return e instanceof Expr.IntConst c && c.type() == ScalarType.I32; }

    /** Elements c + i of an aligned buffer of lanes, c a multiple of l whatever the other loops' values. */
    private boolean isGroup(Buffer buffer, Expr index, LoopVar i, int l, Set<Buffer> callers) {
        if (callers.contains(buffer) || buffer.elementType() != laneType) return false;
        Map<LoopVar, Long> terms = affine(index);
        if (terms == null || terms.getOrDefault(i, 0L) != 1) return false;
        return terms.entrySet().stream().allMatch(term -> term.getKey() == i || term.getValue() % l == 0);
    }

    /**
     * The terms of {@code e} if it is a sum of constants and loop variables times constants, the form of
     * Exprs.flatIndex: each variable's coefficient, and the constant under the key null. Else null.
     */
    private static Map<LoopVar, Long> affine(Expr e) {
        Map<LoopVar, Long> terms = new HashMap<>();
        return addTerms(e, 1, terms) ? terms : null;
    }

    private static boolean addTerms(Expr e, long scale, Map<LoopVar, Long> terms) {
        return switch (e) {
            case Expr.IntConst c -> {
                terms.merge(null, scale * c.value(), Long::sum);
                yield true;
            }
            case Expr.Var v -> {
                terms.merge(v.var(), scale, Long::sum);
                yield true;
            }
            case Expr.Op o when o.op() == ScalarOp.ADD -> addTerms(o.arg(0), scale, terms) && addTerms(o.arg(1), scale, terms);
            case Expr.Op o when o.op() == ScalarOp.MUL && o.arg(1) instanceof Expr.IntConst c -> addTerms(o.arg(0), scale * c.value(), terms);
            case Expr.Op o when o.op() == ScalarOp.MUL && o.arg(0) instanceof Expr.IntConst c -> addTerms(o.arg(1), scale * c.value(), terms);
            default -> false;
        };
    }

    private List<Stmt> packed(Stmt.For f, Stmt.Store store, int l, Set<Buffer> callers) {
        long extent = ((Expr.IntConst) f.extent()).value();
        LoopVar group = new LoopVar(f.var().name() + "_lanes");
        Stmt packedStore = new Stmt.Store(view(store.buffer(), l), wordIndex(store.index(), f.var(), group, l),
            packedValue(store.value(), f.var(), group, l, callers));
        List<Stmt> out = new ArrayList<>();
        out.add(new Stmt.For(group, new Expr.IntConst(ScalarType.I64, extent / l), List.of(packedStore)));
        for (long k = extent / l * l; k < extent; k++) {
            Expr at = new Expr.IntConst(ScalarType.I64, k);
            out.add(new Stmt.Store(store.buffer(), LoopIndices.substitute(store.index(), f.var(), at),
                LoopIndices.substitute(store.value(), f.var(), at)));
        }
        return out;
    }

    /**
     * The operations on packed words: a load of adjacent elements as a load of the word, anything that does
     * not depend on i (a broadcast load, a constant) packed l times, a gathered load's l elements loaded one by
     * one and packed.
     */
    private Expr packedValue(Expr e, LoopVar i, LoopVar group, int l, Set<Buffer> callers) {
        return switch (e) {
            case Expr.Call c -> packedForms.get(c.function()).apply(l)
                .call(c.args().stream().map(a -> packedValue(a, i, group, l, callers)).toList());
            case Expr.Load load when LoopIndices.uses(load.index(), i) && isGroup(load.buffer(), load.index(), i, l, callers) ->
                new Expr.Load(view(load.buffer(), l), wordIndex(load.index(), i, group, l));
            case Expr.Load load when LoopIndices.uses(load.index(), i) -> {
                List<Expr> elements = new ArrayList<>();
                for (int lane = 0; lane < l; lane++) elements.add(LoopIndices.substitute(load, i, LoopIndices.scaled(group, l, lane)));
                yield pack.apply(l).call(elements);
            }
            case Expr.IntConst c when isParameter(c) -> c;
            default -> pack.apply(l).call(Collections.nCopies(l, e));
        };
    }

    /** The word holding elements c + l * group .. c + l * group + l - 1 of a buffer indexed c + i: c / l + group. */
    private static Expr wordIndex(Expr index, LoopVar i, LoopVar group, int l) {
        Expr word = new Expr.Var(group);
        for (Map.Entry<LoopVar, Long> term : affine(index).entrySet()) {
            if (term.getKey() == i) continue;
            Expr scaled = new Expr.IntConst(ScalarType.I64, term.getValue() / l);
            if (term.getKey() != null) scaled = new Expr.Op(ScalarOp.MUL, ScalarType.I64, List.of(new Expr.Var(term.getKey()), scaled));
            word = new Expr.Op(ScalarOp.ADD, ScalarType.I64, List.of(word, scaled));
        }
        return word;
    }

    private Buffer view(Buffer buffer, int l) { return buffer.view(wordType(l), buffer.size() / l); }

    private ScalarType wordType(int l) { return ScalarType.integerOfBits(l * laneBits); }
}
