package dev.byodt.compiler.dtype.reference;

import java.math.BigDecimal;
import java.math.BigInteger;

/** The error function for references (Java has no Math.erf). */
public final class Erf {
    private Erf() {}

    /** Bits after the binary point of the fixed-point series, beyond those x itself needs below 1. */
    private static final int SCALE = 256;
    /** The series stops once a numerator falls below 2^-TAIL relative to x's leading bit (past its largest term). */
    private static final int TAIL = 180;
    /** The most fraction bits a series takes: SCALE more than the smallest double's leading bit needs. */
    private static final int MOST_BITS = SCALE - Double.MIN_EXPONENT;
    /**
     * 2/sqrt(pi) to 50 digits (166 bits; the result keeps 53), truncated to MOST_BITS fraction bits: shifted right,
     * it is the constant truncated to any fewer.
     */
    private static final BigInteger TWO_OVER_SQRT_PI = new BigDecimal("1.1283791670955125738961589031215451716881012586580")
        .multiply(new BigDecimal(BigInteger.ONE.shiftLeft(MOST_BITS))).toBigInteger();

    /**
     * erf by its Maclaurin series, 2/sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1)), in integers counting units of
     * 2^-(256 + max(0, -log2 |x|)); +-1 beyond 6, 0 at 0. A double is m 2^e exactly, so the numerator
     * q_(n+1) = q_n x^2 / (n+1) is a multiplication by m^2, a shift and a division by a small integer, each
     * truncating less than one unit. An error made at term j grows by at most e^(x^2) < 2^52 in the terms after it
     * (the terms reach 2^50 before they shrink, for |x| < 6), so the at most 200 terms are off by less than 2^-194
     * relative to |x| together. Once the terms shrink (n > x^2) the series alternates, so stopping at a numerator
     * below 2^-180 relative to |x| leaves out less than that: both far below the 2^-53 a double resolves. The sum
     * is then rounded to the nearest double once, exactly.
     */
    public static double erf(double x) {
        if (Double.isNaN(x) || x == 0) return x;
        double magnitude = Math.abs(x);
        if (magnitude >= 6) return Math.signum(x);
        int exponent = Math.max(Math.getExponent(magnitude), Double.MIN_EXPONENT);
        int scale = SCALE + Math.max(0, -exponent), e = exponent - 52;
        BigInteger m = BigInteger.valueOf((long) Math.scalb(magnitude, -e));
        BigInteger mSquared = m.multiply(m);
        BigInteger q = m.shiftLeft(scale + e), sum = BigInteger.ZERO;
        for (int n = 0; n <= magnitude * magnitude || q.bitLength() > SCALE - TAIL; n++) {
            BigInteger term = q.divide(BigInteger.valueOf(2L * n + 1));
            sum = n % 2 == 0 ? sum.add(term) : sum.subtract(term);
            q = q.multiply(mSquared).shiftRight(-2 * e).divide(BigInteger.valueOf(n + 1));
        }
        BigInteger constant = TWO_OVER_SQRT_PI.shiftRight(MOST_BITS - scale);
        return Math.copySign(nearestDouble(sum.multiply(constant), 2 * scale), x);
    }

    /** y 2^-fractionBits (y > 0, below 2^1024 in value) rounded to the nearest double, ties to even. */
    private static double nearestDouble(BigInteger y, int fractionBits) {
        // The last place kept: 53 significant bits, or 2^-1074 among the subnormals.
        int lastPlace = Math.max(y.bitLength() - 1 - fractionBits - 52, -1074);
        int dropped = fractionBits + lastPlace;
        BigInteger[] kept = y.divideAndRemainder(BigInteger.ONE.shiftLeft(dropped));
        long k = kept[0].longValueExact();
        int fromHalf = kept[1].shiftLeft(1).compareTo(BigInteger.ONE.shiftLeft(dropped));
        if (fromHalf > 0 || (fromHalf == 0 && (k & 1) == 1)) k++;
        return Math.scalb((double) k, lastPlace);
    }
}
