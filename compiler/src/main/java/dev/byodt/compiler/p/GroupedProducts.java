package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.compiler.lower.LibraryFunction;
import dev.byodt.compiler.lower.Program;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * Groups the iterations of dot-product loops for the RISC-V P extension: a reduction loop over k around
 * {@code acc = single(acc, a(k), b(k))} (one product into an exact accumulator, possibly inside further loops
 * over output positions) becomes a loop over groups of G, for G = 2
 * {@code acc = group(2)(acc, a(2j), a(2j+1), b(2j), b(2j+1))}, so that one SMALDA sums G products (2 on RV32,
 * 4 on RV64). The last {@code extent % G} iterations go in the largest smaller groups that fit, then one
 * single step each: 6 products in groups of 4 and 2 are one group of 4 and one of 2, 7 add a single step, whose
 * nest is grouped in turn where a loop inside it groups (the fifth row of a 5x5 window grouped by rows). A
 * loop shorter than the largest group is unrolled with the other reduction loops of its nest into one list of
 * products grouped by the largest size (a 5x5 window in groups of 8 and 4, fxp8_P's SMAQA on RV64, is 3 groups
 * of 8 and a single step), or where that list is too short or too long takes the largest group that fits
 * (5 products: a group of 4 and a single step), unless a loop inside it takes the largest.
 * The sum is exact, so the changed order does not change the result. Loops that are not such a perfect
 * nest (Conv's windows with padding) stay as they are.
 * <p>
 * Where a group's operands on one side are loads of constant weights, and the library has a function
 * taking them as one G-lane word ({@code groupWord(G)(acc, a0..aG-1, bWord)}),
 * they are laid out at compile time by {@link ConstantWords} and loaded as that word. The loops inside the
 * grouped one are then reordered so that those the other side's operands do not depend on run innermost:
 * one packing of those operands serves all their iterations (a padded-plane Conv's activations, packed
 * from four plane rows, serve every output map). Any order sums the same products exactly.
 */
final class GroupedProducts {
    /** The most products a nest of short reduction loops is unrolled into for groups across its loops. */
    private static final long MOST_UNROLLED = 256;

    private final LibraryFunction single;
    private final IntFunction<LibraryFunction> group;
    private final IntFunction<LibraryFunction> groupWord;
    private final List<Integer> sizes;

    /**
     * Groups calls of {@code single} into calls of {@code group.apply(G)} (same accumulator, G operands each) for
     * each G of {@code sizes}, largest first: the loop in groups of the first that fits, what remains in the
     * smaller ones.
     */
    GroupedProducts(LibraryFunction single, IntFunction<LibraryFunction> group, List<Integer> sizes) { this(single, group, null, sizes); }

    /** As above, and with constant operands of groups as words, calling {@code groupWord.apply(G)}. */
    GroupedProducts(LibraryFunction single, IntFunction<LibraryFunction> group, IntFunction<LibraryFunction> groupWord, List<Integer> sizes) {
        if (sizes.isEmpty()) throw new IllegalArgumentException("no group sizes");
        for (int x = 0; x < sizes.size(); x++) {
            if (sizes.get(x) < 2) throw new IllegalArgumentException("a group has at least 2 products, not " + sizes.get(x));
            if (x > 0 && sizes.get(x) >= sizes.get(x - 1)) throw new IllegalArgumentException("group sizes not decreasing: " + sizes);
        }
        this.single = single;
        this.group = group;
        this.groupWord = groupWord;
        this.sizes = List.copyOf(sizes);
    }

    Program apply(Program program) {
        Run run = new Run(groupWord != null ? new ConstantWords(program.constants()) : null);
        Program grouped = program.withKernelBodies(run::body);
        return run.words == null ? grouped : grouped.withConstants(run.words.constants());
    }

    /** {@code body} grouped, without constant words. */
    List<Stmt> rewrite(List<Stmt> body) { return new Run(null).body(body); }

    private static Map<LoopVar, Expr> inside(Map<LoopVar, Expr> loops, LoopVar var, Expr extent) {
        Map<LoopVar, Expr> deeper = new LinkedHashMap<>(loops);
        deeper.put(var, extent);
        return deeper;
    }

    /**
     * A reduction loop over {@code k} whose body is a perfect nest of loops (whose extents do not depend on
     * {@code k}) around one product update,
     * {@code acc = single(acc, a, b)} or {@code buf[i] = single(buf[i], a, b)}, whose accumulator does not
     * depend on {@code k} (the row of accumulators of Gemm and MatMul, or a scalar one).
     */
    private boolean isGroupable(Stmt.For f) {
        if (!(f.extent() instanceof Expr.IntConst extent) || extent.value() < sizes.getLast()) return false;
        Stmt inner = f;
        while (inner instanceof Stmt.For loop) {
            // Inner loops must run the same iterations for k and k + 1, or the group would sum mismatched terms.
            if (loop.body().size() != 1 || (loop != f && LoopIndices.uses(loop.extent(), f.var()))) return false;
            inner = loop.body().getFirst();
        }
        boolean update = switch (inner) {
            case Stmt.Assign assign -> assign.value() instanceof Expr.Call call && isSingle(call)
                && call.args().getFirst() instanceof Expr.LocalRef ref && ref.local() == assign.local();
            case Stmt.Store store -> store.value() instanceof Expr.Call call && isSingle(call)
                && call.args().getFirst() instanceof Expr.Load load && load.buffer() == store.buffer()
                && load.index().equals(store.index()) && !LoopIndices.uses(store.index(), f.var());
            default -> false;
        };
        return update && (extent.value() >= sizes.getFirst() || !takesLargestGroupInside(f));
    }

    /** Whether a loop inside {@code f}'s nest can be grouped by the largest size: better than a short loop in smaller groups. */
    private boolean takesLargestGroupInside(Stmt.For f) {
        for (Stmt inner = f.body().getFirst(); inner instanceof Stmt.For loop; inner = loop.body().getFirst()) {
            if (loop.extent() instanceof Expr.IntConst extent && extent.value() >= sizes.getFirst() && isGroupable(loop)) return true;
        }
        return false;
    }

    /** The loops of {@code f}'s perfect nest, {@code f} first. */
    private static List<Stmt.For> nestLoops(Stmt.For f) {
        List<Stmt.For> loops = new ArrayList<>();
        for (Stmt s = f; s instanceof Stmt.For loop; s = loop.body().getFirst()) loops.add(loop);
        return loops;
    }

    /**
     * The reduction loops of {@code f}'s nest, those whose variable the accumulator's index does not use (the
     * others run over outputs): all of them where every loop of the nest has a constant extent, so that the
     * loops can run in any order, else {@code f} and those directly inside it.
     */
    private static List<Stmt.For> reductionLoops(Stmt.For f) {
        List<Stmt.For> loops = nestLoops(f);
        Expr accumulator = loops.getLast().body().getFirst() instanceof Stmt.Store store ? store.index() : new Expr.IntConst(ScalarType.I64, 0);
        boolean reorderable = loops.stream().allMatch(l -> l.extent() instanceof Expr.IntConst);
        List<Stmt.For> reductions = new ArrayList<>(List.of(f));
        for (Stmt.For loop : loops.subList(1, loops.size())) {
            boolean reduction = loop.extent() instanceof Expr.IntConst && !LoopIndices.uses(accumulator, loop.var());
            if (reduction) reductions.add(loop);
            else if (!reorderable) break;
        }
        return reductions;
    }

    private boolean isSingle(Expr.Call call) { return single.isCalledBy(call) && call.args().size() == 3; }

    /** {@code var} at first .. first + count - 1. */
    private static List<Map<LoopVar, Expr>> constants(LoopVar var, long first, int count) {
        List<Map<LoopVar, Expr>> indices = new ArrayList<>();
        for (int x = 0; x < count; x++) indices.add(Map.of(var, new Expr.IntConst(ScalarType.I64, first + x)));
        return indices;
    }

    /** {@code e} with each variable of {@code values} replaced by its value. */
    private static Expr substituted(Expr e, Map<LoopVar, Expr> values) {
        for (Map.Entry<LoopVar, Expr> value : values.entrySet()) e = LoopIndices.substitute(e, value.getKey(), value.getValue());
        return e;
    }

    /**
     * The rewrite of one program: the loops around the statement at hand (each loop's variable and extent,
     * outermost first) and, with constant words, the weights laid out as words so far.
     */
    private final class Run extends KernelRewriter {
        private final ConstantWords words;
        private Map<LoopVar, Expr> loops = new LinkedHashMap<>();

        Run(ConstantWords words) { this.words = words; }

        @Override
        public List<Stmt> stmt(Stmt s) {
            if (!(s instanceof Stmt.For f)) return List.of(rebuilt(s));
            if (isGroupable(f)) {
                List<Stmt.For> reductions = reductionLoops(f);
                long products = reductions.stream().mapToLong(l -> ((Expr.IntConst) l.extent()).value()).reduce(1, (x, y) -> x * y);
                boolean shortLoop = ((Expr.IntConst) f.extent()).value() < sizes.getFirst();
                return shortLoop && products >= sizes.getFirst() && products <= MOST_UNROLLED ? flattened(f, reductions) : grouped(f);
            }
            Map<LoopVar, Expr> outer = loops;
            loops = inside(outer, f.var(), f.extent());
            List<Stmt> rewritten = List.of(rebuilt(f));
            loops = outer;
            return rewritten;
        }

        private List<Stmt> grouped(Stmt.For f) {
            long extent = ((Expr.IntConst) f.extent()).value();
            int largest = 0;
            while (sizes.get(largest) > extent) largest++;
            int size = sizes.get(largest);
            LoopVar j = new LoopVar(f.var().name() + "_group");
            List<Map<LoopVar, Expr>> members = new ArrayList<>();
            for (int x = 0; x < size; x++) members.add(Map.of(f.var(), LoopIndices.scaled(j, size, x)));
            List<Stmt> out = new ArrayList<>();
            Expr groups = new Expr.IntConst(ScalarType.I64, extent / size);
            Stmt nest = packedOnce(f.body().getFirst());
            out.add(new Stmt.For(j, groups, List.of(update(nest, members, inside(loops, j, groups)))));
            long k = extent / size * size;
            for (int smaller : sizes.subList(largest + 1, sizes.size())) {
                for (; extent - k >= smaller; k += smaller) out.add(update(nest, constants(f.var(), k, smaller), loops));
            }
            // A single step's nest may hold a loop that groups in turn: Conv's kernel rows of 5 grouped by 4 leave
            // the fifth row, whose 5 taps are a group of 4 and one single step rather than 5 single steps.
            for (; k < extent; k++) out.addAll(stmt(update(nest, constants(f.var(), k, 1), loops)));
            return out;
        }

        /**
         * The reduction loops of {@code f}'s nest ({@link #reductionLoops}) unrolled into one list of their products
         * (the outer loops' iterations slowest) and summed in groups of the largest size, then smaller ones, then
         * single steps, each group inside the nest's other (output) loops: Conv's 5x5 windows, 25 products, are 3
         * groups of 8 and a single step rather than 6 groups of 4 and a single step when 8 products would not fit
         * in a row or column of 5. The sum is exact, so the order of the loops does not change it.
         */
        private List<Stmt> flattened(Stmt.For f, List<Stmt.For> reductions) {
            List<Map<LoopVar, Expr>> products = new ArrayList<>();
            products.add(Map.of());
            for (Stmt.For loop : reductions) {
                List<Map<LoopVar, Expr>> deeper = new ArrayList<>();
                for (Map<LoopVar, Expr> outer : products) {
                    for (long x = 0; x < ((Expr.IntConst) loop.extent()).value(); x++) {
                        Map<LoopVar, Expr> at = new LinkedHashMap<>(outer);
                        at.put(loop.var(), new Expr.IntConst(ScalarType.I64, x));
                        deeper.add(at);
                    }
                }
                products = deeper;
            }
            List<Stmt.For> nestLoops = nestLoops(f);
            Stmt nest = nestLoops.getLast().body().getFirst();
            for (Stmt.For loop : nestLoops.reversed()) {
                if (!reductions.contains(loop)) nest = new Stmt.For(loop.var(), loop.extent(), List.of(nest));
            }
            nest = packedOnce(nest);
            List<Stmt> out = new ArrayList<>();
            int k = 0;
            for (int size : sizes) {
                for (; products.size() - k >= size; k += size) out.add(update(nest, products.subList(k, k + size), loops));
            }
            for (; k < products.size(); k++) out.add(update(nest, products.subList(k, k + 1), loops));
            return out;
        }

        /**
         * The perfect nest {@code nest} with the loops that the non-constant operand does not use moved inside
         * those it uses, when exactly one operand loads constant weights (and the loops' extents are constants).
         */
        private Stmt packedOnce(Stmt nest) {
            List<Stmt.For> nestLoops = new ArrayList<>();
            Stmt inner = nest;
            while (inner instanceof Stmt.For loop) {
                if (!(loop.extent() instanceof Expr.IntConst)) return nest;
                nestLoops.add(loop);
                inner = loop.body().getFirst();
            }
            Expr.Call call = (Expr.Call) (inner instanceof Stmt.Assign assign ? assign.value() : ((Stmt.Store) inner).value());
            if (words == null || nestLoops.size() < 2 || words.loadsConstant(call.args().get(1)) == words.loadsConstant(call.args().get(2))) return nest;
            Expr varying = words.loadsConstant(call.args().get(1)) ? call.args().get(2) : call.args().get(1);
            List<Stmt.For> order = new ArrayList<>(nestLoops.stream().filter(l -> LoopIndices.uses(varying, l.var())).toList());
            order.addAll(nestLoops.stream().filter(l -> !LoopIndices.uses(varying, l.var())).toList());
            Stmt reordered = inner;
            for (Stmt.For loop : order.reversed()) reordered = new Stmt.For(loop.var(), loop.extent(), List.of(reordered));
            return reordered;
        }

        /**
         * The nest with its update summing the products at each k in {@code at} (one product: the single step),
         * inside the loops {@code around}.
         */
        private Stmt update(Stmt s, List<Map<LoopVar, Expr>> at, Map<LoopVar, Expr> around) {
            return switch (s) {
                case Stmt.For loop -> new Stmt.For(loop.var(), loop.extent(),
                    List.of(update(loop.body().getFirst(), at, inside(around, loop.var(), loop.extent()))));
                case Stmt.Assign assign -> new Stmt.Assign(assign.local(), products((Expr.Call) assign.value(), at, around));
                case Stmt.Store store -> new Stmt.Store(store.buffer(), store.index(), products((Expr.Call) store.value(), at, around));
                default -> throw new IllegalStateException("not a groupable loop nest: " + s);
            };
        }

        /**
         * {@code single(acc, a(k), b(k))} for one k, else {@code group(G)(acc, a(k0), a(k1)..., b(k0), b(k1)...)}, or
         * {@code groupWord(G)(acc, a(k0)..., bWord)} with the constant side (a's or b's: the product commutes) as a word.
         */
        private Expr.Call products(Expr.Call call, List<Map<LoopVar, Expr>> at, Map<LoopVar, Expr> around) {
            List<Expr> a = new ArrayList<>(), b = new ArrayList<>();
            for (Map<LoopVar, Expr> values : at) {
                a.add(substituted(call.args().get(1), values));
                b.add(substituted(call.args().get(2), values));
            }
            List<Expr> args = new ArrayList<>();
            args.add(call.args().getFirst());
            Optional<Expr> word = words == null || at.size() == 1 ? Optional.empty() : words.word(b, around);
            if (word.isPresent()) {
                args.addAll(a);
                args.add(word.get());
            } else if (words != null && at.size() > 1 && (word = words.word(a, around)).isPresent()) {
                args.addAll(b);
                args.add(word.get());
            } else {
                args.addAll(a);
                args.addAll(b);
            }
            LibraryFunction function = at.size() == 1 ? single : word.isPresent() ? groupWord.apply(at.size()) : group.apply(at.size());
            return function.call(args);
        }
    }
}
