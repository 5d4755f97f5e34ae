package dev.byodt.runtime;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * How long each stage of turning a model into machine code took (loading, lowering, code generation, LLVM's
 * passes, emission), printed as each stage ends when the command line's --verbose asks for it, so that a slow
 * compile names its stage without a profiler: in wall-clock time and in the CPU time of the thread that ran it,
 * which other processes loading the machine do not inflate. Off, a stage costs one thread-local read.
 */
public final class StageTimes {
    /** Per thread (and the threads it starts), so that commands run side by side in one process, as tests run them, print their own. */
    private static final InheritableThreadLocal<PrintStream> OUT = new InheritableThreadLocal<>();

    private StageTimes() {}

    /** Prints every stage this thread ends from now on to {@code stream} (null: to nowhere). */
    public static void printTo(PrintStream stream) { OUT.set(stream); }

    /** Runs {@code work} as the stage {@code stage} ("optimizing the module") and returns its result. */
    public static <T> T time(String stage, Supplier<T> work) {
        PrintStream stream = OUT.get();
        if (stream == null) return work.get();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = System.nanoTime(), cpuStart = threads.getCurrentThreadCpuTime();
        T result = work.get();
        stream.printf(Locale.ROOT, "byodt: %7.3f s (%.3f s of this thread's CPU)  %s%n", (System.nanoTime() - start) / 1e9,
            (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9, stage);
        return result;
    }

    /** {@link #time(String, Supplier)} for work without a result. */
    public static void time(String stage, Runnable work) {
        time(stage, () -> {
            work.run();
            return null;
        });
    }

    /** A line about a stage that is no time ("optimizing 12 of 155 functions again"), printed when stages are. */
    public static void note(String line) {
        PrintStream stream = OUT.get();
        if (stream != null) stream.println("byodt: " + line);
    }
}
