package dev.byodt.compiler.dtype.floats;

import dev.byodt.compiler.dtype.harness.NativeLibrary;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntBinaryOperator;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every one of the 2^32 pairs of float16 operands for add and mul, checked by {@link Float16JavaArithmetic}
 * (itself checked against the exact reference by {@link Float16JavaArithmeticTest}), for the library compiled
 * both ways a model may get it: with the host's conversion instructions (F16C on x86-64) and with the integer
 * code every other target uses. Minutes long: run with {@code mvn -pl compiler -am test -Pexhaustive}.
 */
@Tag("exhaustive")
class Float16AllPairsTest {
    @Test
    void everyPairOfAddAndMul() {
        for (MinifloatLibraryTest.Format format : new MinifloatLibraryTest.Format[]{
            MinifloatLibraryTest.FLOAT16, MinifloatLibraryTest.FLOAT16_HOST}) {
            try (NativeLibrary lib = format.compile()) {
                checkEveryPair(format, lib, "add", Float16JavaArithmetic::add);
                checkEveryPair(format, lib, "mul", Float16JavaArithmetic::mul);
            }
        }
    }

    private static void checkEveryPair(MinifloatLibraryTest.Format format, NativeLibrary lib, String op, IntBinaryOperator expected) {
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
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertEquals(0, wrong.get(), format + " " + op + ": " + wrong.get() + " wrong pairs, first 0x" + Long.toHexString(firstWrong.get()));
        System.out.println(format + " " + op + ": all 4294967296 pairs exact in " + seconds + " s");
    }
}
