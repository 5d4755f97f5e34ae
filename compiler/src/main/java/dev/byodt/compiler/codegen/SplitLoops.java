package dev.byodt.compiler.codegen;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.Stmt;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The loop of a kernel that the threads of a model compiled for several divide among themselves: each thread
 * runs the whole kernel body, its own scratch buffers and locals, but only its range of that loop's iterations.
 * The operator declares the loop's iterations independent ({@link LoopVar#splits()}); what this class checks is
 * what makes running the rest of the body in every thread harmless, and without it the kernel runs on one thread:
 * <ul>
 *   <li>the kernel has one such loop, not inside another, and the loops around it have constant extents whose
 *       product is at most {@link WorkSharing#RUNS_PER_KERNEL} (each run of the loop is shared out on its own,
 *       tagged with the kernel and the run: {@link #enclosing});</li>
 *   <li>outside it the body stores into scratch buffers only (each thread has its own);</li>
 *   <li>no local assigned in it and no scratch buffer stored in it is read after it (those would hold only the
 *       last thread's part).</li>
 * </ul>
 */
public final class SplitLoops {
    private SplitLoops() {}

    /** The variable of the loop that threads may divide in {@code kernel}, or empty when the kernel runs on one thread. */
    public static Optional<LoopVar> of(Kernel kernel) {
        return loop(kernel).map(Stmt.For::var);
    }

    /** The loop that threads may divide in {@code kernel} ({@link SplitCost} says whether they do), or empty. */
    static Optional<Stmt.For> loop(Kernel kernel) {
        List<Stmt.For> split = new ArrayList<>();
        collect(kernel.body(), split);
        if (split.size() != 1) return Optional.empty();
        Stmt.For loop = split.getFirst();
        long runs = 1;
        for (Stmt.For around : enclosing(kernel, loop)) {
            if (!(around.extent() instanceof Expr.IntConst extent)) return Optional.empty();
            runs *= extent.value();
            if (runs > WorkSharing.RUNS_PER_KERNEL) return Optional.empty();
        }
        Set<Buffer> scratch = new HashSet<>(kernel.scratch());
        Set<Buffer> storedInside = new HashSet<>();
        Set<Local> assignedInside = new HashSet<>();
        writes(loop.body(), storedInside, assignedInside);
        Outside outside = new Outside(loop);
        outside.walk(kernel.body());
        boolean onlyScratchOutside = scratch.containsAll(outside.stored);
        boolean nothingLeaks = outside.loaded.stream().noneMatch(b -> scratch.contains(b) && storedInside.contains(b))
            && outside.read.stream().noneMatch(assignedInside::contains);
        return onlyScratchOutside && nothingLeaks ? Optional.of(loop) : Optional.empty();
    }

    /** The loops around {@code loop} in {@code kernel}, outermost first. */
    private static List<Stmt.For> enclosing(Kernel kernel, Stmt.For loop) {
        List<Stmt.For> path = new ArrayList<>();
        find(kernel.body(), loop, path);
        return path;
    }

    private static boolean find(List<Stmt> body, Stmt.For loop, List<Stmt.For> path) {
        for (Stmt s : body) {
            switch (s) {
                case Stmt.For f -> {
                    if (f == loop) return true;
                    path.add(f);
                    if (find(f.body(), loop, path)) return true;
                    path.removeLast();
                }
                case Stmt.If i -> {
                    if (find(i.then(), loop, path) || find(i.otherwise(), loop, path)) return true;
                }
                case Stmt.Store st -> { }
                case Stmt.Assign a -> { }
                case Stmt.Prefetch p -> { }
            }
        }
        return false;
    }

    private static void collect(List<Stmt> body, List<Stmt.For> split) {
        for (Stmt s : body) {
            switch (s) {
                case Stmt.For f -> {
                    if (f.var().splits()) split.add(f);
                    collect(f.body(), split);
                }
                case Stmt.If i -> {
                    collect(i.then(), split);
                    collect(i.otherwise(), split);
                }
                case Stmt.Store st -> { }
                case Stmt.Assign a -> { }
                case Stmt.Prefetch p -> { }
            }
        }
    }

    private static void writes(List<Stmt> body, Set<Buffer> stored, Set<Local> assigned) {
        for (Stmt s : body) {
            switch (s) {
                case Stmt.For f -> writes(f.body(), stored, assigned);
                case Stmt.If i -> {
                    writes(i.then(), stored, assigned);
                    writes(i.otherwise(), stored, assigned);
                }
                case Stmt.Store st -> stored.add(st.buffer().storage());
                case Stmt.Assign a -> assigned.add(a.local());
                case Stmt.Prefetch p -> { }
            }
        }
    }

    /** What the body outside one loop stores, loads and reads of locals. */
    private static final class Outside {
        final Stmt.For excluded;
        final Set<Buffer> stored = new HashSet<>();
        final Set<Buffer> loaded = new HashSet<>();
        final Set<Local> read = new HashSet<>();

        Outside(Stmt.For excluded) {
            this.excluded = excluded;
        }

        void walk(List<Stmt> body) {
            for (Stmt s : body) {
                if (s == excluded) continue;
                switch (s) {
                    case Stmt.For f -> {
                        expr(f.extent());
                        walk(f.body());
                    }
                    case Stmt.If i -> {
                        expr(i.condition());
                        walk(i.then());
                        walk(i.otherwise());
                    }
                    case Stmt.Store st -> {
                        stored.add(st.buffer().storage());
                        expr(st.index());
                        expr(st.value());
                    }
                    case Stmt.Assign a -> expr(a.value());
                    case Stmt.Prefetch p -> expr(p.index());
                }
            }
        }

        void expr(Expr e) {
            KernelWalker.visit(e, sub -> {
                if (sub instanceof Expr.Load l) loaded.add(l.buffer().storage());
                if (sub instanceof Expr.LocalRef r) read.add(r.local());
            });
        }
    }
}
