package dev.byodt.compiler.dtype.fixed;

import dev.byodt.compiler.dtype.harness.NativeLibrary;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every one of the 2^32 pairs of fxp16_13 (saturating, round to nearest even) for mul, fixed.c as compiled
 * for the host against {@link Fxp16ProductChecker} (itself checked against the exact reference by
 * {@link Fxp16ProductCheckerTest}). Minutes long: run with {@code mvn -pl compiler -am test -Pexhaustive}.
 */
@Tag("exhaustive")
class Fxp16_13AllPairsTest {
    @Test
    void everyPairOfMul() {
        Fxp16ProductChecker checker = new Fxp16ProductChecker(13);
        long start = System.nanoTime();
        AtomicLong wrong = new AtomicLong();
        AtomicLong firstWrong = new AtomicLong(-1);
        try (NativeLibrary lib = new FixedLibraryTest.Format(16, 13, false, false).compile()) {
            IntStream.range(0, 1 << 16).parallel().forEach(a -> {
                int[] left = new int[1 << 16], right = new int[1 << 16];
                for (int b = 0; b < 1 << 16; b++) { left[b] = a; right[b] = b; }
                int[] actual = lib.binary("mul", left, right);
                for (int b = 0; b < 1 << 16; b++) {
                    if (actual[b] != checker.mul(a, b)) {
                        wrong.incrementAndGet();
                        firstWrong.compareAndSet(-1, ((long) a << 16) | b);
                    }
                }
            });
        }
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertEquals(0, wrong.get(), "mul: " + wrong.get() + " wrong pairs, first 0x" + Long.toHexString(firstWrong.get()));
        System.out.println("fxp16_13 mul: all 4294967296 pairs exact in " + seconds + " s");
    }
}
