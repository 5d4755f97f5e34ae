package dev.byodt.compiler.dtype.posit;

import java.util.Arrays;

/**
 * A fast checker for add, sub and mul of an N-bit posit instance (N <= 16, es 0..3), written independently of
 * the C library: the positive posits and the midpoints between neighbours ((N+1)-bit posits) in one sorted
 * table, every key exact in double, and the section 4.1 rule read off a binary search in it. Patterns are
 * N-bit unsigned integers as in {@link PositReference}.
 *
 * <p>Sums: let x be the operand of larger magnitude and y the other. If |y| is below the distance from x to both
 * of its neighbouring keys, x + y lies strictly between those two keys and on x's side of both midpoints, so
 * it rounds to x, whatever y is (x = minPos and x = maxPos included: below minPos and above maxPos there is no
 * midpoint). Otherwise y is within about 17 scales of x and has at most 14 significant bits, so x + y has at
 * most about 35 significant bits and the double sum is exact; every such sum is checked to be exact (Dekker:
 * with |x| >= |y|, s - x is exact, so s - x == y holds exactly when s == x + y). That covers es = 3, whose
 * scales of +-120 would not fit sums in a fixed-point integer of 128 bits.
 *
 * <p>Products: significands of at most 14 bits and scales within +-112 make every product exact in double.
 */
final class PositTableRounding {
    private final int n;
    private final long nar;
    private final int maxPos;
    /** key[2p - 2] = value(p), key[2p - 1] = the midpoint above p, for p = 1..maxPos. */
    private final double[] key;
    /** Every pattern's value (NaR: NaN). */
    private final double[] value;
    /** For positive p: the distance from value(p) to the nearer neighbouring key (for minPos: 0 below it). */
    private final double[] reach;

    PositTableRounding(int n, int es) {
        if (n > 16) throw new IllegalArgumentException("the table checker takes posits of up to 16 bits");
        PositReference ref = new PositReference(n, es);
        this.n = n;
        this.nar = ref.nar();
        this.maxPos = (int) ref.maxPos();
        key = new double[2 * maxPos - 1];
        Exact[] exactKey = new Exact[key.length];
        for (int p = 1; p <= maxPos; p++) {
            exactKey[2 * p - 2] = ref.value(p);
            if (p < maxPos) exactKey[2 * p - 1] = ref.midpointAbove(p);
        }
        for (int i = 0; i < key.length; i++) key[i] = exactDouble(exactKey[i]);
        value = new double[1 << n];
        for (int p = 0; p < 1 << n; p++) value[p] = ref.isNar(p) ? Double.NaN : exactDouble(ref.value(p));
        reach = new double[maxPos + 1];
        for (int p = 1; p <= maxPos; p++) {
            Exact v = exactKey[2 * p - 2];
            Exact below = p == 1 ? v : v.subtract(exactKey[2 * p - 3]);
            Exact above = p == maxPos ? below : exactKey[2 * p - 1].subtract(v);
            reach[p] = exactDouble(below.compareTo(above) < 0 ? below : above);
        }
    }

    private static double exactDouble(Exact v) {
        double d = v.toDouble();
        if (!Exact.of(d).equals(v)) throw new AssertionError("not exact in double: " + v);
        return d;
    }

    int add(int a, int b) {
        if (a == nar || b == nar) return (int) nar;
        double x = value[a], y = value[b];
        if (Math.abs(y) > Math.abs(x)) return add(b, a);
        if (farApart(a, b)) return a;
        double sum = x + y;
        if (sum - x != y) throw new AssertionError("inexact double sum of patterns " + a + " and " + b);
        return round(sum);
    }

    /**
     * Whether the smaller-magnitude operand is below the distance from the larger one to its neighbouring keys,
     * so that the sum rounds to the larger one (y = 0 included; x = 0 is not far from 0).
     */
    boolean farApart(int larger, int smaller) {
        int magnitude = larger < nar ? larger : (int) (-larger & mask());
        return Math.abs(value[smaller]) < reach[magnitude];
    }

    int sub(int a, int b) {
        return add(a, b == nar ? b : (int) (-b & mask()));
    }

    int mul(int a, int b) {
        if (a == nar || b == nar) return (int) nar;
        return round(value[a] * value[b]);
    }

    private long mask() { return (1L << n) - 1; }

    private int round(double v) {
        if (v == 0) return 0;
        int i = Arrays.binarySearch(key, Math.abs(v));
        int magnitude = i >= 0 ? fromIndex(i, true) : fromIndex(-i - 2, false);
        return v < 0 ? (int) (-magnitude & mask()) : magnitude;
    }

    /** The positive posit for a magnitude at or just above table index i (-1: below minPos). */
    private int fromIndex(int i, boolean equal) {
        if (i < 0) return 1;                          // below minPos: minPos, never 0
        int p = i / 2 + 1;
        if (i % 2 == 0) return p;                     // at value(p) or between it and the midpoint (or above maxPos)
        if (!equal) return p + 1;                     // above the midpoint
        return (p & 1) == 0 ? p : p + 1;              // a tie: the even pattern
    }
}
