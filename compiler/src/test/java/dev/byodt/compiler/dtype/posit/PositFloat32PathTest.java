package dev.byodt.compiler.dtype.posit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * posit.c computes add and sub of posits up to 16 bits in float32 and rounds the float32 sum (it proves that
 * the float32 sum lands on a rounding boundary only when the exact sum is on it); mul in float32 where products
 * are exact. These are the inputs where that could go wrong, checked against the exact reference: sums just
 * beside a rounding boundary (and any whose float32 rounding lands on one without being it), exact ties (sums
 * and products on a boundary), sums cancelling down to a boundary, and the extremes (0, NaR, +-minPos,
 * +-maxPos, +-1) against every value. Also the method's premise: every boundary (every (N+1)-bit posit between
 * two N-bit ones, geometric midpoints included) is a float32. The default run checks posit16 with the
 * standard's es 2 and two narrower posits of other es; -Pexhaustive posit16 with es 0, 1 and 3 (each checked
 * on 300,000 seeded pairs and the edge cases by {@link Posit16Test} in the default run).
 */
@Execution(ExecutionMode.CONCURRENT)
class PositFloat32PathTest {
    /** Posits tried on each side of a boundary, as the larger addend. */
    static final int NEAR = 4;

    @ParameterizedTest
    @CsvSource({"16, 2", "12, 1", "9, 3"})
    void sumsAndProductsAtRoundingBoundaries(int n, int es) {
        checkRoundingBoundaries(n, es);
    }

    @Tag("exhaustive")
    @ParameterizedTest
    @CsvSource({"16, 0", "16, 1", "16, 3"})
    void sumsAndProductsAtRoundingBoundariesOfTheOtherPosit16s(int n, int es) {
        checkRoundingBoundaries(n, es);
    }

    private static void checkRoundingBoundaries(int n, int es) {
        PositReference ref = new PositReference(n, es);
        PositReference wider = new PositReference(n + 1, es);
        int positives = (int) ref.maxPos();
        double[] values = new double[positives + 1];
        Map<Double, Long> patternOf = new HashMap<>();
        for (int p = 1; p <= positives; p++) {
            values[p] = ref.toDouble(p);
            patternOf.put(values[p], (long) p);
        }
        List<long[]> pairs = new ArrayList<>();
        int nearBoundary = 0, sumTies = 0, productTies = 0;
        Set<Float> boundaries = new HashSet<>();
        for (long q = 1; q < wider.nar() - 1; q += 2) {
            double boundary = wider.toDouble(q);
            assertEquals(boundary, (float) boundary, "posit" + (n + 1) + "es" + es + " boundary " + boundary + " is not a float32");
            boundaries.add((float) boundary);
        }
        for (long q = 1; q < wider.nar() - 1; q += 2) {
            double boundary = wider.toDouble(q);
            long below = q / 2, above = below + 1;
            for (long x = Math.max(1, below - NEAR + 1); x <= Math.min(positives, above + NEAR - 1); x++) {
                double gap = boundary - values[(int) x];
                int nearest = nearestPositive(values, Math.abs(gap));
                for (int y = Math.max(1, nearest - 1); y <= Math.min(positives, nearest + 1); y++) {
                    long addend = gap < 0 ? ref.negate(y) : y;
                    double sum = values[(int) x] + Math.copySign(values[y], gap); // exact: close scales, <= 14 bits each
                    // The float32 sum on a boundary, or within 2^-18 of one (relative): where the rounding is decided.
                    boolean tie = sum == boundary, near = Math.abs(sum - boundary) <= Math.scalb(Math.abs(boundary), -18);
                    if (!tie && !near && !boundaries.contains((float) sum)) continue;
                    if (tie) sumTies++; else nearBoundary++;
                    pairs.add(new long[]{x, addend});
                    pairs.add(new long[]{ref.negate(x), ref.negate(addend)});
                    pairs.add(new long[]{addend, x});
                }
            }
            for (int k = -3; k <= 3; k++) {
                for (double shape : new double[]{1, 1.5, 1.25, 1.75}) {
                    Long x = patternOf.get(Math.scalb(shape, k));
                    if (x == null) continue;
                    Long y = patternOf.get(boundary / values[(int) (long) x]);
                    if (y == null || values[(int) (long) y] * values[(int) (long) x] != boundary) continue;
                    productTies++;
                    for (long z = Math.max(1, y - 1); z <= Math.min(positives, y + 1); z++) {
                        pairs.add(new long[]{x, z});
                        pairs.add(new long[]{ref.negate(x), z});
                    }
                }
            }
        }
        assertTrue(nearBoundary > 10, "sums within 2^-18 of a boundary: " + nearBoundary);
        assertTrue(sumTies > 10, "sums exactly on a boundary: " + sumTies);
        assertTrue(productTies > 10, "products exactly on a boundary: " + productTies);
        long m = ref.maxPos();
        for (long edge : new long[]{0, ref.nar(), 1, ref.negate(1), m, ref.negate(m), 1L << (n - 2), ref.negate(1L << (n - 2))}) {
            for (long p : PositChecks.allPatterns(n)) {
                pairs.add(new long[]{edge, p});
                pairs.add(new long[]{p, edge});
            }
        }
        PositChecks.sumsDifferencesAndProducts(ref, pairs);
    }

    /** The positive pattern whose value is nearest to v > 0 (values[1..] increasing). */
    static int nearestPositive(double[] values, double v) {
        int i = Arrays.binarySearch(values, 1, values.length, v);
        if (i >= 0) return i;
        int above = -i - 1;
        if (above >= values.length) return values.length - 1;
        if (above <= 1) return 1;
        return v - values[above - 1] <= values[above] - v ? above - 1 : above;
    }
}
