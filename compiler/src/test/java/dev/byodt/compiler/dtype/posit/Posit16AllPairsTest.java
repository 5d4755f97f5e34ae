package dev.byodt.compiler.dtype.posit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every one of the 2^32 pairs of posit16 (es 2) for add and mul, checked by {@link Posit16TableRounding}
 * (whose table lookups are themselves checked against the exact reference on a sample first). Minutes long:
 * run with {@code mvn -pl compiler -am test -Pexhaustive}.
 */
@Tag("exhaustive")
class Posit16AllPairsTest {
    @Test
    void everyPairOfAddAndMul() {
        Posit16TableRounding table = new Posit16TableRounding();
        PositReference ref = new PositReference(16, 2);
        java.util.Random random = new java.util.Random(4);
        for (int i = 0; i < 200_000; i++) {
            int a = random.nextInt(1 << 16), b = random.nextInt(1 << 16);
            assertEquals(ref.add(a, b), table.add(a, b), "table add " + a + " " + b);
            assertEquals(ref.mul(a, b), table.mul(a, b), "table mul " + a + " " + b);
        }
        try (PositLibrary lib = PositLibrary.compile(16, 2)) {
            for (String op : new String[]{"add", "mul"}) {
                long start = System.nanoTime();
                AtomicLong wrong = new AtomicLong();
                AtomicLong firstWrong = new AtomicLong(-1);
                IntStream.range(0, 1 << 16).parallel().forEach(a -> {
                    int[] left = new int[1 << 16], right = new int[1 << 16];
                    for (int b = 0; b < 1 << 16; b++) { left[b] = a; right[b] = b; }
                    int[] actual = lib.lib.binary(op, left, right);
                    for (int b = 0; b < 1 << 16; b++) {
                        int expected = op.equals("add") ? table.add(a, b) : table.mul(a, b);
                        if (actual[b] != expected) {
                            wrong.incrementAndGet();
                            firstWrong.compareAndSet(-1, ((long) a << 16) | b);
                        }
                    }
                });
                long seconds = (System.nanoTime() - start) / 1_000_000_000L;
                long first = firstWrong.get();
                assertEquals(0, wrong.get(), op + ": " + wrong.get() + " wrong pairs, first " + Long.toHexString(first));
                System.out.println("posit16es2 " + op + ": all 4294967296 pairs exact in " + seconds + " s");
            }
        }
    }
}
