package dev.byodt.compiler.dtype.posit;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * A fast checker for posit16 es 2, written independently of the C library: the positive posits and the midpoints
 * between neighbours (17-bit posits) in one sorted table, and the section 4.1 rule read off a binary search in it.
 * Values are exact as 128-bit integers in units of 2^-60 (the 17-bit minPos; maxPos is 2^56, so sums of two
 * posits fit) for addition, and as doubles for multiplication (posit16 significands have at most 12 bits, so a
 * product has at most 24 and is exact in double).
 */
final class Posit16TableRounding {
    private static final int SCALE = 60;
    private final PositReference ref = new PositReference(16, 2);
    private final int maxPos = (int) ref.maxPos();
    /** key[2p - 2] = value(p), key[2p - 1] = the midpoint above p: high and low 64 bits, and as doubles. */
    private final long[] keyHigh, keyLow;
    private final double[] keyDouble;
    /** Every pattern's value in units of 2^-60, as two's complement high/low words, and as a double. */
    private final long[] valueHigh = new long[1 << 16], valueLow = new long[1 << 16];
    private final double[] valueDouble = new double[1 << 16];

    Posit16TableRounding() {
        int keys = 2 * maxPos - 1;
        keyHigh = new long[keys];
        keyLow = new long[keys];
        keyDouble = new double[keys];
        for (int p = 1; p <= maxPos; p++) {
            setKey(2 * p - 2, ref.value(p));
            if (p < maxPos) setKey(2 * p - 1, ref.midpointAbove(p));
        }
        for (int p = 0; p < 1 << 16; p++) {
            if (ref.isNar(p)) continue;
            BigInteger units = inUnits(ref.value(p));
            valueHigh[p] = units.shiftRight(64).longValue();
            valueLow[p] = units.longValue();
            valueDouble[p] = ref.toDouble(p);
        }
    }

    private void setKey(int i, Exact v) {
        BigInteger units = inUnits(v);
        keyHigh[i] = units.shiftRight(64).longValue();
        keyLow[i] = units.longValue();
        keyDouble[i] = v.toDouble();
        if (!Exact.of(keyDouble[i]).equals(v)) throw new AssertionError("key not exact in double");
    }

    private static BigInteger inUnits(Exact v) {
        Exact scaled = v.multiply(Exact.dyadic(BigInteger.ONE, SCALE));
        BigInteger[] qr = scaled.num().divideAndRemainder(scaled.den());
        if (qr[1].signum() != 0) throw new AssertionError("not a multiple of 2^-60: " + v);
        return qr[0];
    }

    int add(int a, int b) {
        if (a == 0x8000 || b == 0x8000) return 0x8000;
        long low = valueLow[a] + valueLow[b];
        long carry = Long.compareUnsigned(low, valueLow[a]) < 0 ? 1 : 0;
        long high = valueHigh[a] + valueHigh[b] + carry;
        if (high < 0) { // negate the 128-bit sum
            low = -low;
            high = ~high + (low == 0 ? 1 : 0);
            return negate(roundMagnitude(high, low));
        }
        return roundMagnitude(high, low);
    }

    int mul(int a, int b) {
        if (a == 0x8000 || b == 0x8000) return 0x8000;
        double product = valueDouble[a] * valueDouble[b];
        int magnitude = roundMagnitude(Math.abs(product));
        return product < 0 ? negate(magnitude) : magnitude;
    }

    private static int negate(int p) { return -p & 0xFFFF; }

    private int roundMagnitude(long high, long low) {
        if (high == 0 && low == 0) return 0;
        int lo = -1, hi = keyHigh.length; // key[lo] <= x < key[hi]
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            int c = compare(keyHigh[mid], keyLow[mid], high, low);
            if (c <= 0) lo = mid; else hi = mid;
        }
        return fromIndex(lo, lo >= 0 && keyHigh[lo] == high && keyLow[lo] == low);
    }

    private int roundMagnitude(double x) {
        if (x == 0) return 0;
        int i = Arrays.binarySearch(keyDouble, x);
        return i >= 0 ? fromIndex(i, true) : fromIndex(-i - 2, false);
    }

    /** The posit for a magnitude at or just above table index i (-1: below minPos). */
    private int fromIndex(int i, boolean equal) {
        if (i < 0) return 1;                          // below minPos: minPos, never 0
        int p = i / 2 + 1;
        if (i % 2 == 0) return p;                     // at value(p) or between it and the midpoint
        if (!equal) return p + 1;                     // above the midpoint
        return (p & 1) == 0 ? p : p + 1;              // a tie: the even pattern
    }

    private static int compare(long h1, long l1, long h2, long l2) {
        return h1 != h2 ? Long.compare(h1, h2) : Long.compareUnsigned(l1, l2);
    }
}
