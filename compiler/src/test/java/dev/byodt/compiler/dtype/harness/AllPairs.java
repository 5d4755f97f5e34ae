package dev.byodt.compiler.dtype.harness;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntBinaryOperator;
import java.util.stream.IntStream;

/**
 * A 16-bit datatype's binary library function on all 2^32 operand pairs, compared with a checker: the
 * exhaustive tests' loop. The pairs go to the library 2^16 at a time (one left operand with every right
 * operand), in parallel.
 */
public final class AllPairs {
    /** How many pairs differ, the first one found as (a << 16) | b (-1 if none), and the seconds it took. */
    public record Outcome(long wrong, long firstWrong, long seconds) {
        public String firstWrongHex() { return Long.toHexString(firstWrong); }
    }

    private AllPairs() {}

    public static Outcome compare(NativeLibrary lib, String op, IntBinaryOperator expected) {
        long start = System.nanoTime();
        AtomicLong wrong = new AtomicLong();
        AtomicLong firstWrong = new AtomicLong(-1);
        IntStream.range(0, 1 << 16).parallel().forEach(a -> {
            int[] left = new int[1 << 16], right = new int[1 << 16];
            for (int b = 0; b < 1 << 16; b++) { left[b] = a; right[b] = b; }
            int[] actual = lib.binary(op, left, right);
            for (int b = 0; b < 1 << 16; b++) {
                if (actual[b] != expected.applyAsInt(a, b)) {
                    wrong.incrementAndGet();
                    firstWrong.compareAndSet(-1, ((long) a << 16) | b);
                }
            }
        });
        return new Outcome(wrong.get(), firstWrong.get(), (System.nanoTime() - start) / 1_000_000_000L);
    }
}
