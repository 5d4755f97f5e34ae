package dev.byodt.compiler.codegen;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;

import java.util.List;

/**
 * Whether the threads of a model compiled for several divide a loop that {@link SplitLoops} allows them to, and
 * into how many chunks. Dividing a run of the loop costs its threads a few hundred nanoseconds to a few
 * microseconds (publishing the run, a compare-and-swap per chunk, the caller waiting for the last chunk, and the
 * other thread reading what the caller wrote before it from the caller's cache): a run with less work than that
 * runs faster on the caller's thread alone, and a chunk with less work than that is better merged into its
 * neighbour. Work is counted in operations of the loop's body: loads, stores, arithmetic on values (not on 64-bit
 * indices, nor comparisons, which address and bound what is loaded) and, weighing {@link #CALL_OPERATIONS} each,
 * library calls, times the iterations of the loops around them (a loop whose extent is not a constant, the border
 * of a convolution's row, counts once, and what computes its extent once).
 */
public final class SplitCost {
    private SplitCost() {}

    /** The least work of one run of a split loop for its threads to divide it (calibrated on mobilenet_v2's kernels). */
    public static final long LEAST_WORK = 500_000;
    /** At most this many chunks per thread: a thread that loses its core holds the others up by one small chunk. */
    static final long CHUNKS_PER_THREAD = 8;
    /** The operations a library call counts for: an emulated datatype's arithmetic is tens of instructions. */
    static final long CALL_OPERATIONS = 16;

    /**
     * How many chunks {@code threads} threads cut each run of the loop of {@code kernel} that {@link SplitLoops}
     * allows them to divide (see below); 0 when the kernel runs on the caller's thread alone.
     */
    public static long chunks(Kernel kernel, int threads, long leastWork) {
        return SplitLoops.loop(kernel).map(loop -> chunks(loop, threads, leastWork)).orElse(0L);
    }

    /**
     * How many chunks {@code threads} threads cut one run of {@code loop} into: at most {@link #CHUNKS_PER_THREAD}
     * per thread, one per iteration and {@link WorkSharing#MOST_CHUNKS} in all, each of at least {@code leastWork}
     * over {@code threads} operations; 0 when the run has less than {@code leastWork} operations, or the loop's
     * extent is not a constant (the caller's thread then runs the loop alone).
     */
    static long chunks(Stmt.For loop, int threads, long leastWork) {
        if (!(loop.extent() instanceof Expr.IntConst extent) || extent.value() < 2) return 0;
        long work = operations(List.of(loop));
        if (work < leastWork) return 0;
        long byWork = Math.max(threads, work / Math.max(1, leastWork / threads));
        return Math.min(Math.min(extent.value(), WorkSharing.MOST_CHUNKS), Math.min(threads * CHUNKS_PER_THREAD, byWork));
    }

    /** The operations {@code body} runs (see the class comment). */
    static long operations(List<Stmt> body) {
        long total = 0;
        for (Stmt s : body) {
            total = saturatedAdd(total, switch (s) {
                case Stmt.For f -> saturatedAdd(operations(f.extent()),
                    saturatedMultiply(f.extent() instanceof Expr.IntConst c ? Math.max(c.value(), 0) : 1, operations(f.body())));
                case Stmt.Store st -> 1 + operations(st.index()) + operations(st.value());
                case Stmt.Assign a -> operations(a.value());
                case Stmt.Prefetch p -> 1 + operations(p.index());
                case Stmt.If i -> operations(i.condition()) + Math.max(operations(i.then()), operations(i.otherwise()));
            });
        }
        return total;
    }

    private static long operations(Expr e) {
        long[] count = {0};
        KernelWalker.visit(e, sub -> count[0] += switch (sub) {
            case Expr.Load l -> 1;
            case Expr.Op o -> o.type() == ScalarType.I64 || o.type() == ScalarType.BOOL ? 0 : 1;
            case Expr.Call c -> CALL_OPERATIONS;
            default -> 0;
        });
        return count[0];
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    private static long saturatedMultiply(long a, long b) {
        return b != 0 && a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * b;
    }
}
