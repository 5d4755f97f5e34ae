package dev.byodt.cli.compare;

import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Spreads numbered model calls over every core: each worker takes the next call number until none is
 * left, so a slow call does not hold up a fixed share. The first failure is rethrown as it was.
 */
final class ParallelCalls {
    private ParallelCalls() {}

    static void run(int calls, IntConsumer call) {
        int workers = Math.min(calls, Runtime.getRuntime().availableProcessors());
        AtomicInteger next = new AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, workers))) {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                running.add(pool.submit(() -> {
                    for (int c = next.getAndIncrement(); c < calls; c = next.getAndIncrement()) call.accept(c);
                }));
            }
            for (Future<?> f : running) f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ByodtException("interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        }
    }
}
