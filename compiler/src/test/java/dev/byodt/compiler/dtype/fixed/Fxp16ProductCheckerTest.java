package dev.byodt.compiler.dtype.fixed;

import dev.byodt.compiler.dtype.reference.FixedReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link Fxp16ProductChecker}, the checker of the exhaustive fxp16_13 product test, against the exact rational
 * {@link FixedReference}: every pair of a set of edge values (extremes, zero, ones, halves and their neighbours,
 * where rounding ties and saturation happen) and 10^6 seeded random pairs.
 */
class Fxp16ProductCheckerTest {
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 8, 13, 15})
    void agreesWithTheExactReference(int p) {
        Fxp16ProductChecker checker = new Fxp16ProductChecker(p);
        FixedReference reference = new FixedReference(16, p, false, false);
        int[] edges = edges(p);
        for (int a : edges) {
            for (int b : edges) assertEquals(reference.mul(a, b), checker.mul(a, b), "fxp16_" + p + " mul " + a + " " + b);
        }
        Random random = new Random(16_000 + p);
        for (int i = 0; i < 1_000_000; i++) {
            // Every other pair small in magnitude, where products neither saturate nor lose all their bits.
            int a = random.nextInt(1 << 16) >> (i % 2 == 0 ? 0 : random.nextInt(16));
            int b = random.nextInt(1 << 16) >> (i % 2 == 0 ? 0 : random.nextInt(16));
            a = (int) (short) a & 0xFFFF;
            b = (int) (short) b & 0xFFFF;
            assertEquals(reference.mul(a, b), checker.mul(a, b), "fxp16_" + p + " mul " + a + " " + b);
        }
    }

    /** Patterns whose products are ties, neighbours of ties or beyond the range. */
    private static int[] edges(int p) {
        int[] centres = {0, 1, 3, 1 << Math.max(p - 1, 0), 1 << p, 3 << Math.max(p - 1, 0), 0x4000, 0x7FFF, 0x8000};
        int[] edges = new int[centres.length * 6];
        int k = 0;
        for (int c : centres) {
            for (int d = -1; d <= 1; d++) {
                edges[k++] = (c + d) & 0xFFFF;
                edges[k++] = (-(c + d)) & 0xFFFF;
            }
        }
        return edges;
    }
}
