package dev.byodt.cli;

import java.util.List;

/**
 * Throughput of several inferences measured in turns: each runs for a slice of the measuring time, then the next,
 * round after round, and each one's calls and time add up over its slices. A machine whose speed changes over
 * seconds (other work, a virtual machine's neighbours) then slows every inference alike, where measuring one for the
 * whole time and then the next gave ratios that swung with whatever ran meanwhile.
 */
final class InterleavedTiming {
    /** Turns each inference takes: each lasts a tenth of the measuring time. */
    private static final int ROUNDS = 10;

    private InterleavedTiming() {}

    /**
     * Images per second of each inference (a call computes {@code batch} images), in the order given: a warm-up of a
     * quarter of the time each, then {@value #ROUNDS} rounds in which each inference runs for a tenth of
     * {@code seconds} (at least one call).
     */
    static double[] imagesPerSecond(double seconds, int batch, List<Runnable> inferences) {
        for (Runnable inference : inferences) runFor(seconds * 0.25, inference, new long[2]);
        long[][] callsAndNanos = new long[inferences.size()][2];
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < inferences.size(); i++) runFor(seconds / ROUNDS, inferences.get(i), callsAndNanos[i]);
        }
        double[] perSecond = new double[inferences.size()];
        for (int i = 0; i < perSecond.length; i++) perSecond[i] = callsAndNanos[i][0] * batch / (callsAndNanos[i][1] / 1e9);
        return perSecond;
    }

    /** Calls {@code inference} until {@code seconds} have passed (once at least), adding the calls and nanoseconds to {@code callsAndNanos}. */
    private static void runFor(double seconds, Runnable inference, long[] callsAndNanos) {
        long start = System.nanoTime(), end = start + (long) (seconds * 1e9), now;
        do {
            inference.run();
            callsAndNanos[0]++;
            now = System.nanoTime();
        } while (now < end);
        callsAndNanos[1] += now - start;
    }
}
