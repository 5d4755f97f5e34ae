package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.reference.Rational;

import java.math.BigDecimal;
import java.math.BigInteger;

/** An exact rational number num/den (den > 0), not necessarily in lowest terms: the reference's arithmetic. */
record Exact(BigInteger num, BigInteger den) implements Comparable<Exact> {
    static final Exact ZERO = new Exact(BigInteger.ZERO, BigInteger.ONE);
    static final Exact ONE = new Exact(BigInteger.ONE, BigInteger.ONE);

    Exact {
        if (den.signum() <= 0) throw new IllegalArgumentException("denominator must be positive");
    }

    /** m * 2^e. */
    static Exact dyadic(BigInteger m, int e) {
        return e >= 0 ? new Exact(m.shiftLeft(e), BigInteger.ONE) : new Exact(m, BigInteger.ONE.shiftLeft(-e));
    }

    static Exact of(long v) { return new Exact(BigInteger.valueOf(v), BigInteger.ONE); }

    /** The exact value of a finite double. */
    static Exact of(double d) {
        Rational r = Rational.of(d);
        return new Exact(r.num(), r.den());
    }

    static Exact of(BigDecimal d) {
        return d.scale() >= 0 ? new Exact(d.unscaledValue(), BigInteger.TEN.pow(d.scale()))
            : new Exact(d.unscaledValue().multiply(BigInteger.TEN.pow(-d.scale())), BigInteger.ONE);
    }

    int signum() { return num.signum(); }

    Exact negate() { return new Exact(num.negate(), den); }

    Exact abs() { return signum() < 0 ? negate() : this; }

    Exact add(Exact o) {
        if (den.equals(o.den)) return new Exact(num.add(o.num), den);
        return new Exact(num.multiply(o.den).add(o.num.multiply(den)), den.multiply(o.den));
    }

    Exact subtract(Exact o) { return add(o.negate()); }

    Exact multiply(Exact o) { return new Exact(num.multiply(o.num), den.multiply(o.den)); }

    /** this / o for o != 0. */
    Exact divide(Exact o) {
        BigInteger n = num.multiply(o.den), d = den.multiply(o.num);
        return d.signum() < 0 ? new Exact(n.negate(), d.negate()) : new Exact(n, d);
    }

    @Override
    public int compareTo(Exact o) {
        int sign = signum();
        if (sign != o.signum()) return Integer.compare(sign, o.signum());
        // |num/den| lies in (2^(order-1), 2^(order+1)) for order = bitLength |num| - bitLength den, so values whose
        // orders differ by 2 or more compare by them alone: most of the comparisons a bisection over patterns makes.
        int order = num.abs().bitLength() - den.bitLength(), otherOrder = o.num.abs().bitLength() - o.den.bitLength();
        if (Math.abs(order - otherOrder) >= 2) return sign * Integer.compare(order, otherOrder);
        // Dyadic values (every posit, and sums, differences and products of two) line up by a shift: num/2^a against
        // o.num/2^b is num 2^(b-a) against o.num. Most of the rest of a bisection's comparisons; a product was half
        // of Posit16Test's time.
        if (den.bitCount() == 1 && o.den.bitCount() == 1) {
            int shift = o.den.getLowestSetBit() - den.getLowestSetBit();
            return shift >= 0 ? num.shiftLeft(shift).compareTo(o.num) : num.compareTo(o.num.shiftLeft(-shift));
        }
        return num.multiply(o.den).compareTo(o.num.multiply(den));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Exact e && compareTo(e) == 0;
    }

    @Override
    public int hashCode() {
        throw new UnsupportedOperationException("Exact values are compared, not hashed");
    }

    /** The nearest double (correctly rounded by BigDecimal), for messages and double-based references. */
    double toDouble() {
        return new BigDecimal(num).divide(new BigDecimal(den), java.math.MathContext.DECIMAL128).doubleValue();
    }

    @Override
    public String toString() { return num + "/" + den + " (~" + toDouble() + ")"; }
}
