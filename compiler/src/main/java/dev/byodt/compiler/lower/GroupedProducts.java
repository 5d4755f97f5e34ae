package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;

import java.util.ArrayList;
import java.util.List;

/**
 * Groups the iterations of dot-product loops for the RISC-V P extension: a reduction loop over k around
 * {@code acc = single(acc, a(k), b(k))} (one product into an exact accumulator, possibly inside further loops
 * over output positions) becomes a loop over groups of G, for G = 2
 * {@code acc = group(acc, a(2j), a(2j+1), b(2j), b(2j+1))}, plus one single step for each of the last
 * {@code extent % G} iterations, so that one SMALDA sums G products (2 on RV32, 4 on RV64). The sum is
 * exact, so the changed order does not change the result. Loops that are not such a perfect nest (Conv's
 * windows with padding) stay as they are.
 */
public final class GroupedProducts {
    private final String single;
    private final String group;
    private final int size;

    /** Groups calls of {@code single} by {@code size} into calls of {@code group} (same accumulator, size operands each). */
    public GroupedProducts(String single, String group, int size) {
        if (size < 2) throw new IllegalArgumentException("a group has at least 2 products, not " + size);
        this.single = single;
        this.group = group;
        this.size = size;
    }

    public Program apply(Program program) {
        List<Kernel> kernels = new ArrayList<>();
        for (Kernel k : program.kernels()) {
            kernels.add(new Kernel(k.name(), k.opType(), k.inputs(), k.outputs(), k.scratch(), k.constants(), rewrite(k.body())));
        }
        return new Program(program.name(), kernels, program.inputs(), program.inputSpecs(), program.outputs(),
            program.outputSpecs(), program.constants(), program.temporaries());
    }

    List<Stmt> rewrite(List<Stmt> body) {
        List<Stmt> out = new ArrayList<>();
        for (Stmt s : body) {
            switch (s) {
                case Stmt.For f when isGroupable(f) -> out.addAll(grouped(f));
                case Stmt.For f -> out.add(new Stmt.For(f.var(), f.extent(), rewrite(f.body())));
                case Stmt.If i -> out.add(new Stmt.If(i.condition(), rewrite(i.then()), rewrite(i.otherwise())));
                default -> out.add(s);
            }
        }
        return out;
    }

    /**
     * A reduction loop over {@code k} whose body is a perfect nest of loops (whose extents do not depend on
     * {@code k}) around one product update,
     * {@code acc = single(acc, a, b)} or {@code buf[i] = single(buf[i], a, b)}, whose accumulator does not
     * depend on {@code k} (the row of accumulators of Gemm and MatMul, or a scalar one).
     */
    private boolean isGroupable(Stmt.For f) {
        if (!(f.extent() instanceof Expr.IntConst extent) || extent.value() < size) return false;
        Stmt inner = f;
        while (inner instanceof Stmt.For loop) {
            // Inner loops must run the same iterations for k and k + 1, or the group would sum mismatched terms.
            if (loop.body().size() != 1 || (loop != f && LoopIndices.uses(loop.extent(), f.var()))) return false;
            inner = loop.body().getFirst();
        }
        return switch (inner) {
            case Stmt.Assign assign -> assign.value() instanceof Expr.Call call && isSingle(call)
                && call.args().getFirst() instanceof Expr.LocalRef ref && ref.local() == assign.local();
            case Stmt.Store store -> store.value() instanceof Expr.Call call && isSingle(call)
                && call.args().getFirst() instanceof Expr.Load load && load.buffer() == store.buffer()
                && load.index().equals(store.index()) && !LoopIndices.uses(store.index(), f.var());
            default -> false;
        };
    }

    private boolean isSingle(Expr.Call call) { return call.function().equals(single) && call.args().size() == 3; }

    private List<Stmt> grouped(Stmt.For f) {
        long extent = ((Expr.IntConst) f.extent()).value();
        LoopVar j = new LoopVar(f.var().name() + "_group");
        List<Expr> members = new ArrayList<>();
        for (int x = 0; x < size; x++) members.add(LoopIndices.scaled(j, size, x));
        List<Stmt> out = new ArrayList<>();
        out.add(new Stmt.For(j, new Expr.IntConst(ScalarType.I64, extent / size), List.of(update(f.body().getFirst(), f.var(), members))));
        for (long k = extent / size * size; k < extent; k++) {
            out.add(update(f.body().getFirst(), f.var(), List.of(new Expr.IntConst(ScalarType.I64, k))));
        }
        return out;
    }

    /** The nest with its update summing the products at each k in {@code at} (one product: the single step). */
    private Stmt update(Stmt s, LoopVar k, List<Expr> at) {
        return switch (s) {
            case Stmt.For loop -> new Stmt.For(loop.var(), loop.extent(), List.of(update(loop.body().getFirst(), k, at)));
            case Stmt.Assign assign -> new Stmt.Assign(assign.local(), products((Expr.Call) assign.value(), k, at));
            case Stmt.Store store -> new Stmt.Store(store.buffer(), store.index(), products((Expr.Call) store.value(), k, at));
            default -> throw new IllegalStateException("not a groupable loop nest: " + s);
        };
    }

    /** {@code single(acc, a(k), b(k))} for one k, else {@code group(acc, a(k0), a(k1)..., b(k0), b(k1)...)}. */
    private Expr.Call products(Expr.Call call, LoopVar k, List<Expr> at) {
        List<Expr> args = new ArrayList<>();
        args.add(call.args().get(0));
        for (Expr operand : call.args().subList(1, 3)) {
            for (Expr value : at) args.add(LoopIndices.substitute(operand, k, value));
        }
        return new Expr.Call(at.size() == 1 ? single : group, call.type(), args, call.passing());
    }
}
