package dev.byodt.cli.report;

import java.util.Arrays;

/**
 * A sum of doubles with no rounding error until it is read: the running total is kept as a list of
 * non-overlapping partial sums (Shewchuk's "grow expansion", the algorithm behind Python's math.fsum),
 * and {@link #value()} rounds it once, correctly. Because the kept total is exact, adding the same numbers
 * in any order, or summing parts on several threads and merging them, gives bit-identical results.
 */
public final class ExactSum {
    private double[] partials = new double[4];
    private int count;

    /** Adds a finite value (the callers sum only finite terms). */
    public void add(double x) {
        if (!Double.isFinite(x)) throw new IllegalArgumentException("non-finite term " + x);
        int kept = 0;
        for (int j = 0; j < count; j++) {
            double y = partials[j];
            if (Math.abs(x) < Math.abs(y)) {
                double swap = x;
                x = y;
                y = swap;
            }
            double hi = x + y;
            double lo = y - (hi - x);
            if (lo != 0) partials[kept++] = lo;
            x = hi;
        }
        if (kept == partials.length) partials = Arrays.copyOf(partials, 2 * kept);
        partials[kept] = x;
        count = kept + 1;
    }

    /** Adds another exact sum, exactly. */
    public void add(ExactSum other) {
        for (int j = 0; j < other.count; j++) add(other.partials[j]);
    }

    /** The exact total rounded to the nearest double, ties to even. */
    public double value() {
        if (count == 0) return 0;
        int n = count - 1;
        double hi = partials[n], lo = 0;
        while (n > 0) {
            double x = hi, y = partials[--n];
            hi = x + y;
            lo = y - (hi - x);
            if (lo != 0) break;
        }
        // When the rest below lo has lo's sign, the exact total is past the halfway point that hi + 2*lo would round back from.
        if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
            double twice = lo * 2, x = hi + twice;
            if (twice == x - hi) hi = x;
        }
        return hi;
    }
}
