package dev.byodt.compiler.codegen;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * The threads that run parts 1 and up of each call of a model compiled for several, kept for the model's life.
 * A call is numbered; the caller publishes its number and its work, wakes the workers that sleep, and runs part 0.
 * A worker that sees a new number takes its part by compare-and-swap, runs it and says it is done; after a call it
 * checks for the next one for {@link #SPIN_NANOS} before it sleeps, so calls one after the other (a benchmark, a
 * run over a data set) hand over with no system call on either side. When part 0
 * is done, the caller withdraws the part of every worker that has not taken it (on a busy machine it may not get
 * a core for a long while, and part 0 has done its work: {@link WorkSharing}) and waits for the others.
 *
 * <p>Calls take turns: the caller runs one at a time (HostModel holds a lock).
 */
final class PartWorkers implements AutoCloseable {
    /** How long a worker checks for the next call before it sleeps, and a waiting caller spins before it yields. */
    private static final long SPIN_NANOS = 50_000;

    private final Worker[] workers;
    private final AtomicLong call = new AtomicLong();
    /** What the current call's workers run: the part's number in, nothing out; it may throw. */
    private volatile LongConsumer work;
    private volatile boolean closed;

    /** Starts {@code count} workers, named after {@code name}. */
    PartWorkers(int count, String name) {
        workers = new Worker[count];
        for (int w = 0; w < count; w++) {
            workers[w] = new Worker(w + 1);
            Thread thread = new Thread(workers[w], name);
            thread.setDaemon(true);
            workers[w].thread = thread;
            thread.start();
        }
    }

    /**
     * Runs {@code part} for every part: part 0 on this thread, the others on the workers that take theirs in time.
     * Rethrows what a part threw.
     */
    void run(LongConsumer part) throws Throwable {
        work = part;
        long number = call.incrementAndGet();
        for (Worker w : workers) {
            if (w.sleeping) LockSupport.unpark(w.thread);
        }
        Throwable failure = null;
        try {
            part.accept(0);
        } catch (Throwable e) {
            failure = e;
        }
        for (Worker w : workers) {
            // A worker that has not taken its part by now never will: the number it would take is gone.
            if (w.taken.compareAndSet(number - 1, number)) continue;
            long start = System.nanoTime();
            while (w.done.get() != number) {
                if (System.nanoTime() - start < SPIN_NANOS) Thread.onSpinWait();
                else Thread.yield();
            }
            Throwable thrown = w.failure.getAndSet(null);
            if (failure == null) failure = thrown;
        }
        if (failure != null) throw failure;
    }

    @Override
    public void close() {
        closed = true;
        for (Worker w : workers) LockSupport.unpark(w.thread);
    }

    private final class Worker implements Runnable {
        final long part;
        Thread thread;
        /** The number of the last call whose part this worker took, or that the caller withdrew. */
        final AtomicLong taken = new AtomicLong();
        /** The number of the last call whose part this worker finished. */
        final AtomicLong done = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean sleeping;

        Worker(long part) {
            this.part = part;
        }

        @Override
        public void run() {
            long seen = 0;
            while (!closed) {
                long number = awaitCall(seen);
                if (number == seen) continue;
                seen = number;
                if (!taken.compareAndSet(number - 1, number)) continue;
                try {
                    work.accept(part);
                } catch (Throwable e) {
                    failure.set(e);
                }
                done.set(number);
            }
        }

        /** The number of a call after {@code seen}, or {@code seen} when woken for another reason (closing). */
        private long awaitCall(long seen) {
            long start = System.nanoTime();
            while (System.nanoTime() - start < SPIN_NANOS) {
                long number = call.get();
                if (number != seen) return number;
                Thread.onSpinWait();
            }
            sleeping = true;
            try {
                long number = call.get();
                if (number == seen && !closed) LockSupport.park(this);
                return call.get();
            } finally {
                sleeping = false;
            }
        }
    }
}
