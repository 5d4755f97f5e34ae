package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;

import java.util.ArrayList;
import java.util.List;

/**
 * Pairs the iterations of dot-product loops for the RISC-V P extension: a reduction loop over k around
 * {@code acc = single(acc, a(k), b(k))} (one product into an exact accumulator, possibly inside further loops
 * over output positions) becomes a loop over pairs {@code acc = pair(acc, a(2j), a(2j+1), b(2j), b(2j+1))},
 * plus one single step when the extent is odd, so that one SMALDA sums two products. The sum is exact, so
 * the changed order does not change the result. Loops that are not such a perfect nest (Conv's windows with
 * padding) stay as they are.
 */
public final class PairedProducts {
    private final String single;
    private final String pair;

    /** Pairs calls of {@code single} into calls of {@code pair} (same accumulator, two operands each). */
    public PairedProducts(String single, String pair) {
        this.single = single;
        this.pair = pair;
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
                case Stmt.For f when isPairable(f) -> out.addAll(paired(f));
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
     * depend on {@code k} (Gemm's row of accumulators, MatMul's one).
     */
    private boolean isPairable(Stmt.For f) {
        if (!(f.extent() instanceof Expr.IntConst extent) || extent.value() < 2) return false;
        Stmt inner = f;
        while (inner instanceof Stmt.For loop) {
            // Inner loops must run the same iterations for k and k + 1, or the pair would sum mismatched terms.
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

    private List<Stmt> paired(Stmt.For f) {
        long extent = ((Expr.IntConst) f.extent()).value();
        LoopVar j = new LoopVar(f.var().name() + "_pair");
        List<Stmt> out = new ArrayList<>();
        out.add(new Stmt.For(j, new Expr.IntConst(ScalarType.I64, extent / 2),
            List.of(update(f.body().getFirst(), f.var(), LoopIndices.scaled(j, 2, 0), LoopIndices.scaled(j, 2, 1)))));
        if (extent % 2 == 1) out.add(update(f.body().getFirst(), f.var(), new Expr.IntConst(ScalarType.I64, extent - 1), null));
        return out;
    }

    /** The nest with its update summing the products at k = first and k = second (one product when second is null). */
    private Stmt update(Stmt s, LoopVar k, Expr first, Expr second) {
        return switch (s) {
            case Stmt.For loop -> new Stmt.For(loop.var(), loop.extent(), List.of(update(loop.body().getFirst(), k, first, second)));
            case Stmt.Assign assign -> new Stmt.Assign(assign.local(), products((Expr.Call) assign.value(), k, first, second));
            case Stmt.Store store -> new Stmt.Store(store.buffer(), store.index(), products((Expr.Call) store.value(), k, first, second));
            default -> throw new IllegalStateException("not a pairable loop nest: " + s);
        };
    }

    private Expr.Call products(Expr.Call call, LoopVar k, Expr first, Expr second) {
        Expr acc = call.args().get(0), a = call.args().get(1), b = call.args().get(2);
        if (second == null) {
            return new Expr.Call(single, call.type(), List.of(acc, LoopIndices.substitute(a, k, first), LoopIndices.substitute(b, k, first)), call.passing());
        }
        return new Expr.Call(pair, call.type(), List.of(acc, LoopIndices.substitute(a, k, first), LoopIndices.substitute(a, k, second),
            LoopIndices.substitute(b, k, first), LoopIndices.substitute(b, k, second)), call.passing());
    }
}
