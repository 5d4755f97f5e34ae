package dev.byodt.compiler.dtype.posit;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * posit.c adds posits wider than 16 bits in a 32-bit word (a 64-bit one for posit32 es 0), aligning the smaller
 * significand with a sticky bit, and multiplies them from the product's two 32-bit halves. These are the inputs
 * where that could go wrong, checked against the exact reference: sums and products exactly on a rounding
 * boundary (the (N+1)-bit posit between two neighbours, geometric midpoints included) and beside one by a
 * small posit's worth, sums that cancel, the widest-apart operands (where only the sticky bit is left of the
 * smaller one), and 0, NaR, +-minPos, +-maxPos and +-1 against seeded random values.
 */
@Execution(ExecutionMode.CONCURRENT)
class WidePositRoundingTest {
    /** Posits tried on each side of a boundary, as the larger addend. */
    static final int NEAR = 3;

    @ParameterizedTest
    @CsvSource({"32, 0", "32, 1", "32, 2", "32, 3", "31, 0", "28, 2", "24, 1", "20, 3", "17, 0"})
    void sumsAndProductsAtRoundingBoundaries(int n, int es) {
        PositReference ref = new PositReference(n, es);
        Random random = new Random(n * 8L + es);
        long positives = ref.maxPos();
        List<long[]> pairs = new ArrayList<>();
        int sumTies = 0, productTies = 0;
        for (long below : boundariesAbove(ref, random)) {
            Exact boundary = ref.midpointAbove(below);
            long above = below + 1;
            for (long x = Math.max(1, below - NEAR + 1); x <= Math.min(positives, above + NEAR - 1); x++) {
                Exact gap = boundary.subtract(ref.value(x));
                long nearest = ref.round(gap.abs());
                for (long y = Math.max(1, nearest - 1); y <= Math.min(positives, nearest + 1); y++) {
                    long addend = gap.signum() < 0 ? ref.negate(y) : y;
                    if (ref.value(x).add(ref.value(addend)).compareTo(boundary) == 0) sumTies++;
                    pairs.add(new long[]{x, addend});
                    pairs.add(new long[]{ref.negate(x), ref.negate(addend)});
                    pairs.add(new long[]{addend, x});
                }
            }
            // Factors 1 and 1.5 times powers of two that move the other factor's scale by up to two regimes,
            // where posits have a bit more or less: products land on boundaries there.
            int regime = 1 << es;
            for (int k : new int[]{0, 1, -1, regime, -regime, 2 * regime, -2 * regime}) {
                for (int numerator : new int[]{2, 3}) {
                    long x = ref.round(Exact.dyadic(BigInteger.valueOf(numerator), k - 1));
                    long y = ref.round(boundary.divide(ref.value(x)));
                    if (ref.value(x).multiply(ref.value(y)).compareTo(boundary) == 0) productTies++;
                    for (long z = Math.max(1, y - 1); z <= Math.min(positives, y + 1); z++) {
                        pairs.add(new long[]{x, z});
                        pairs.add(new long[]{ref.negate(x), z});
                    }
                }
            }
        }
        assertTrue(sumTies > 100, "sums exactly on a boundary: " + sumTies);
        assertTrue(productTies > 100, "products exactly on a boundary: " + productTies);
        for (int i = 0; i < 3000; i++) {
            long x = random.nextLong() & ref.mask();
            long k = random.nextInt(9) - 4;
            pairs.add(new long[]{x, ref.negate((x + k) & ref.mask())}); // cancellation down to a few units
        }
        long m = ref.maxPos(), one = 1L << (n - 2);
        long[] edges = {0, ref.nar(), 1, 2, ref.negate(1), ref.negate(2), m, m - 1, ref.negate(m), ref.negate(m - 1),
            one, ref.negate(one), one - 1, one + 1};
        for (long edge : edges) {
            for (int i = 0; i < 2000; i++) {
                long p = random.nextLong() & ref.mask();
                pairs.add(new long[]{edge, p});
                pairs.add(new long[]{p, edge});
            }
            for (long other : edges) pairs.add(new long[]{edge, other});
        }
        PositChecks.sumsDifferencesAndProducts(ref, pairs);
    }

    /**
     * Positive patterns whose rounding boundary with the next one up is tested: those on each side of every power
     * of two that is a posit (where the significand is shortest and the exponent bits are cut at the extremes),
     * and seeded random ones.
     */
    static long[] boundariesAbove(PositReference ref, Random random) {
        List<Long> patterns = new ArrayList<>();
        int maxScale = (ref.n - 2) << ref.es;
        for (int scale = -maxScale; scale <= maxScale; scale++) {
            long p = ref.round(Exact.dyadic(BigInteger.ONE, scale));
            if (p > 1) patterns.add(p - 1);
            if (p < ref.maxPos()) patterns.add(p);
        }
        for (int i = 0; i < 500; i++) patterns.add(1 + (random.nextLong() & ref.mask()) % (ref.maxPos() - 1));
        return patterns.stream().mapToLong(Long::longValue).distinct().toArray();
    }
}
