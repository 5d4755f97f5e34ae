package dev.byodt.compiler.dtype.reference;

import java.math.BigInteger;

/**
 * The exact meaning of fxpN_P: pattern s (two's complement) is the rational s / 2^P. Results are exact
 * rationals, scaled by 2^P and rounded to an integer by the format's rule (nearest-even; or truncation:
 * toward zero for conversions and quotients, toward minus infinity for products), then saturated or wrapped.
 */
public final class FixedReference {
    private final int n;
    private final int p;
    private final boolean wrap;
    private final boolean truncate;
    private final BigInteger max;
    private final BigInteger min;

    public FixedReference(int n, int p, boolean wrap, boolean truncate) {
        this.n = n;
        this.p = p;
        this.wrap = wrap;
        this.truncate = truncate;
        this.max = BigInteger.ONE.shiftLeft(n - 1).subtract(BigInteger.ONE);
        this.min = BigInteger.ONE.shiftLeft(n - 1).negate();
    }

    public int mask() { return n == 32 ? -1 : (1 << n) - 1; }

    public long signed(int a) { return n == 32 ? a : (long) (a << (32 - n)) >> (32 - n); }

    public Rational value(int a) { return Rational.scaled(BigInteger.valueOf(signed(a)), -p); }

    private int saturate(BigInteger v) { return v.max(min).min(max).intValue() & mask(); }

    /** An exact integer result brought into range by the overflow rule. */
    public int fit(BigInteger v) { return wrap ? v.intValue() & mask() : saturate(v); }

    private Rational scaledUp(Rational x) { return x.multiply(Rational.scaled(BigInteger.ONE, p)); }

    /** A double converted: x * 2^P rounded (nearest-even or toward zero), always saturated; NaN is 0. */
    public int fromDouble(double d) {
        if (Double.isNaN(d)) return 0;
        if (Double.isInfinite(d)) return saturate(d > 0 ? max : min);
        return fromReal(Rational.of(d));
    }

    /** A real number converted like a double: x * 2^P rounded (nearest-even or toward zero), saturated. */
    public int fromReal(Rational real) {
        Rational x = scaledUp(real);
        return saturate(truncate ? Rounding.towardZero(x) : Rounding.nearestEven(x));
    }

    public int add(int a, int b) { return fit(BigInteger.valueOf(signed(a) + signed(b))); }

    public int sub(int a, int b) { return fit(BigInteger.valueOf(signed(a) - signed(b))); }

    public int mul(int a, int b) {
        Rational x = scaledUp(value(a).multiply(value(b)));
        return fit(truncate ? Rounding.floor(x) : Rounding.nearestEven(x));
    }

    public int div(int a, int b) {
        if (signed(b) == 0) return saturate(BigInteger.valueOf(Long.signum(signed(a))).multiply(max.add(BigInteger.ONE)));
        Rational x = scaledUp(value(a).divide(value(b)));
        return fit(truncate ? Rounding.towardZero(x) : Rounding.nearestEven(x));
    }

    /** a divided by the integer n (a mean's count), exact, rounded as a quotient rounds, then brought into range. */
    public int divByInteger(int a, int n) {
        if (n == 0) return div(a, 0);
        Rational x = scaledUp(value(a).divide(Rational.of(n)));
        return fit(truncate ? Rounding.towardZero(x) : Rounding.nearestEven(x));
    }

    public int min(int a, int b) { return signed(b) < signed(a) ? b : a; }

    public int max(int a, int b) { return signed(b) > signed(a) ? b : a; }

    public int neg(int a) { return fit(BigInteger.valueOf(-signed(a))); }

    public int abs(int a) { return fit(BigInteger.valueOf(Math.abs(signed(a)))); }

    /** sqrt(s / 2^P) * 2^P = sqrt(s * 2^P), rounded (never a tie); negative gives 0. */
    public int sqrt(int a) {
        if (signed(a) < 0) return 0;
        BigInteger v = BigInteger.valueOf(signed(a)).shiftLeft(p);
        BigInteger r = v.sqrt();
        if (!truncate && v.shiftLeft(2).compareTo(r.shiftLeft(1).add(BigInteger.ONE).pow(2)) > 0) r = r.add(BigInteger.ONE);
        return fit(r);
    }

    public float toFloat(int a) { return (float) (signed(a) / Math.pow(2, p)); }

    public int toInt(int a) { return Rounding.towardZero(value(a)).intValueExact(); }

    public int fromInt(int i) { return fit(BigInteger.valueOf(i).shiftLeft(p)); }

    public int lowest() { return min.intValue() & mask(); }

    /** An exact sum of products (in units of 2^-2P) rounded once like a product, then brought into range. */
    public int roundAccumulated(BigInteger sumOfProducts) {
        Rational x = Rational.scaled(sumOfProducts, -p);
        return fit(truncate ? Rounding.floor(x) : Rounding.nearestEven(x));
    }
}
