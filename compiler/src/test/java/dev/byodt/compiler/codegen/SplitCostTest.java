package dev.byodt.compiler.codegen;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.byodt.compiler.codegen.Programs.buffer;
import static dev.byodt.compiler.kernel.Exprs.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** What a kernel's work is counted as, and how many chunks that work buys on several threads. */
class SplitCostTest {
    /**
     * out[i] = x[i] * 2 + 1 over 1000 split iterations: a load, a multiply, an add and a store each (the index
     * arithmetic and the constants count nothing), 4000 operations.
     */
    private static Kernel scale(long extent) {
        Buffer x = buffer("x", extent), out = buffer("out", extent);
        KernelBuilder kb = new KernelBuilder("scale", "Mul", List.of(x), List.of(out));
        kb.splitLoop(extent, i -> kb.store(out, i, add(mul(kb.load(x, i), real(2)), real(1))));
        return kb.build();
    }

    @Test
    void countsLoadsStoresAndArithmeticOnValuesTimesTheIterations() {
        assertEquals(4000, SplitCost.operations(scale(1000).body()));
    }

    @Test
    void countsACallAsSixteenOperationsAndALoopOfUnknownLengthOnce() {
        Buffer x = buffer("x", 8, 8), lengths = new Buffer("lengths", ScalarType.I64, new long[] {8}), out = buffer("out", 8, 8);
        KernelBuilder kb = new KernelBuilder("rows", "Custom", List.of(x, lengths), List.of(out));
        kb.loop(8, row -> kb.loop(kb.load(lengths, row), column -> {
            Expr at = add(mul(row, 8), column);
            kb.store(out, at, new Expr.Call("f", ScalarType.REAL, List.of(kb.load(x, at))));
        }));
        // Per row: the load of its length, then the inner body once: a load, the call (16) and a store.
        assertEquals(8 * (1 + 1 + 16 + 1), SplitCost.operations(kb.build().body()));
    }

    @Test
    void dividesOnlyARunWithTheLeastWorkIntoChunksOfAtLeastItsShare() {
        Kernel kernel = scale(1000);
        assertEquals(0, SplitCost.chunks(kernel, 2, 4001), "less work than the least: one thread");
        assertEquals(2, SplitCost.chunks(kernel, 2, 4000), "just the least: a chunk a thread");
        assertEquals(8, SplitCost.chunks(kernel, 2, 1000), "each chunk at least 500 operations");
        assertEquals(16, SplitCost.chunks(kernel, 2, 10), "at most 8 chunks a thread");
        assertEquals(24, SplitCost.chunks(kernel, 3, 0), "0: every run divided, 8 chunks a thread");
        assertEquals(5, SplitCost.chunks(scale(5), 2, 0), "at most a chunk an iteration");
        assertEquals(WorkSharing.MOST_CHUNKS, SplitCost.chunks(scale(100_000), 1000, 0),
            "no more chunks than each end of the claim word counts");
    }
}
