package dev.byodt.compiler.dtype.harness;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntBinaryOperator;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;

/**
 * A datatype's binary library function on all operand pairs, compared with a checker: the exhaustive tests'
 * loop. The pairs go to the library one left operand with every right operand at a time, in parallel.
 */
public final class AllPairs {
    /** How many pairs differ, the first one found as (a << bits) | b (-1 if none), and the seconds it took. */
    public record Outcome(long wrong, long firstWrong, long seconds) {
        public String firstWrongHex() { return Long.toHexString(firstWrong); }
    }

    private AllPairs() {}

    /** Every pair of a 16-bit datatype's 2^16 storage integers; expected works on storage integers too. */
    public static Outcome compare(NativeLibrary lib, String op, IntBinaryOperator expected) {
        return compare(lib, op, 16, IntUnaryOperator.identity(), IntUnaryOperator.identity(), expected);
    }

    /**
     * Every pair of the operands 0..2^bits-1 (bits <= 16): storageOf gives the storage integer the library
     * takes for an operand, operandOf the operand a library result stands for, and expected works on operands.
     */
    public static Outcome compare(NativeLibrary lib, String op, int bits, IntUnaryOperator storageOf,
                                  IntUnaryOperator operandOf, IntBinaryOperator expected) {
        long start = System.nanoTime();
        int count = 1 << bits;
        int[] storage = new int[count];
        for (int b = 0; b < count; b++) storage[b] = storageOf.applyAsInt(b);
        AtomicLong wrong = new AtomicLong();
        AtomicLong firstWrong = new AtomicLong(-1);
        IntStream.range(0, count).parallel().forEach(a -> {
            int[] left = new int[count];
            Arrays.fill(left, storage[a]);
            int[] actual = lib.binary(op, left, storage);
            for (int b = 0; b < count; b++) {
                if (operandOf.applyAsInt(actual[b]) != expected.applyAsInt(a, b)) {
                    wrong.incrementAndGet();
                    firstWrong.compareAndSet(-1, ((long) a << bits) | b);
                }
            }
        });
        return new Outcome(wrong.get(), firstWrong.get(), (System.nanoTime() - start) / 1_000_000_000L);
    }
}
