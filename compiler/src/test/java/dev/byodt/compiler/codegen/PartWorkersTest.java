package dev.byodt.compiler.codegen;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each call runs part 0 on the caller's thread and every other part once at most, and says what a part threw. */
class PartWorkersTest {
    @Test
    void everyCallRunsPartZeroAndEachOtherPartOnceAtMost() throws Throwable {
        int calls = 2000;
        AtomicIntegerArray runs = new AtomicIntegerArray(calls * 3);
        try (PartWorkers workers = new PartWorkers(2, "test-part")) {
            for (int call = 0; call < calls; call++) {
                int c = call;
                Thread caller = Thread.currentThread();
                workers.run(part -> {
                    if (part == 0) assertSame(caller, Thread.currentThread(), "part 0 on the caller's thread");
                    runs.incrementAndGet(c * 3 + (int) part);
                });
                // Every part that ran has returned by now: the counts are final.
                assertEquals(1, runs.get(c * 3), "part 0 of call " + c);
                for (int part = 1; part < 3; part++) assertTrue(runs.get(c * 3 + part) <= 1, "part " + part + " of call " + c);
            }
        }
    }

    /** Part 0 waits (30 s at most) until the worker has taken its part, so the worker's part surely runs. */
    @Test
    void whatAWorkerThrowsFailsTheCall() {
        try (PartWorkers workers = new PartWorkers(1, "test-part")) {
            AtomicBoolean taken = new AtomicBoolean();
            RuntimeException failure = new RuntimeException("part 1 failed");
            assertSame(failure, assertThrows(RuntimeException.class, () -> workers.run(part -> {
                if (part == 1) {
                    taken.set(true);
                    throw failure;
                }
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (!taken.get() && System.nanoTime() < deadline) Thread.onSpinWait();
                assertTrue(taken.get(), "the worker took its part within 30 s");
            })));
        }
    }

    @Test
    void aFailedPartFailsTheCallAndTheNextCallRuns() throws Throwable {
        try (PartWorkers workers = new PartWorkers(1, "test-part")) {
            IllegalStateException failure = new IllegalStateException("part 0 failed");
            assertSame(failure, assertThrows(IllegalStateException.class, () -> workers.run(part -> {
                if (part == 0) throw failure;
            })));
            int[] ran = new int[1];
            workers.run(part -> {
                if (part == 0) ran[0]++;
            });
            assertEquals(1, ran[0]);
        }
    }
}
