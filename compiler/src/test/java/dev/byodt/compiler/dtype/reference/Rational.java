package dev.byodt.compiler.dtype.reference;

import java.math.BigDecimal;
import java.math.BigInteger;

/** An exact rational number num/den (den > 0, not necessarily in lowest terms): what references compute in. */
public record Rational(BigInteger num, BigInteger den) implements Comparable<Rational> {
    public static final Rational ZERO = new Rational(BigInteger.ZERO, BigInteger.ONE);

    public Rational {
        if (den.signum() == 0) throw new ArithmeticException("zero denominator");
        if (den.signum() < 0) { num = num.negate(); den = den.negate(); }
    }

    public static Rational of(BigInteger n) { return new Rational(n, BigInteger.ONE); }

    public static Rational of(long n) { return of(BigInteger.valueOf(n)); }

    /** The exact value of a finite double: its 53-bit integer significand times a power of two. */
    public static Rational of(double d) {
        if (!Double.isFinite(d)) throw new IllegalArgumentException("not finite: " + d);
        int lastPlace = Math.max(Math.getExponent(d), Double.MIN_EXPONENT) - 52;
        return scaled(BigInteger.valueOf((long) Math.scalb(d, -lastPlace)), lastPlace);
    }

    /** The exact value of a BigDecimal. */

    public static Rational of(BigDecimal d) {
        return d.scale() >= 0 ? new Rational(d.unscaledValue(), BigInteger.TEN.pow(d.scale()))
            : of(d.unscaledValue().multiply(BigInteger.TEN.pow(-d.scale())));
    }

    /** n * 2^k. */
    public static Rational scaled(BigInteger n, int k) {
        return k >= 0 ? of(n.shiftLeft(k)) : new Rational(n, BigInteger.ONE.shiftLeft(-k));
    }

    public Rational add(Rational o) { return new Rational(num.multiply(o.den).add(o.num.multiply(den)), den.multiply(o.den)); }

    public Rational subtract(Rational o) { return add(o.negate()); }

    public Rational multiply(Rational o) { return new Rational(num.multiply(o.num), den.multiply(o.den)); }

    public Rational divide(Rational o) { return new Rational(num.multiply(o.den), den.multiply(o.num)); }

    public Rational negate() { return new Rational(num.negate(), den); }

    public Rational abs() { return signum() < 0 ? negate() : this; }

    public int signum() { return num.signum(); }

    @Override
    public int compareTo(Rational o) { return num.multiply(o.den).compareTo(o.num.multiply(den)); }

    /** floor(log2 |this|) for a nonzero value. */
    public int floorLog2() {
        BigInteger n = num.abs();
        int e = n.bitLength() - den.bitLength();
        // 2^e <= |n/d| < 2^(e+1) after at most one correction: when 2^e d > |n|.
        int fromPower = e >= 0 ? n.compareTo(den.shiftLeft(e)) : n.shiftLeft(-e).compareTo(den);
        return fromPower < 0 ? e - 1 : e;
    }

    public BigDecimal toBigDecimal(int digits) {
        return new BigDecimal(num).divide(new BigDecimal(den), new java.math.MathContext(digits));
    }
}
