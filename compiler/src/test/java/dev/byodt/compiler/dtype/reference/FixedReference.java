package dev.byodt.compiler.dtype.reference;

import dev.byodt.compiler.dtype.RoundingMode;

import java.math.BigInteger;
import java.util.function.Function;

/**
 * The exact meaning of fxpN_P: pattern s (two's complement) is the rational s / 2^P. Results are exact
 * rationals, scaled by 2^P and rounded to an integer by the format's rule (nearest-even; or truncation:
 * toward zero for conversions and quotients, toward minus infinity for products; or another {@link RoundingMode}
 * of the value, stochastic rounding with the random bits {@link #useRandomBits} gives), then saturated or wrapped.
 */
public final class FixedReference {
    private final int n;
    private final int p;
    private final boolean wrap;
    private final boolean truncate;
    private final RoundingMode mode;
    private final int srBits;
    private int random;
    private final BigInteger max;
    private final BigInteger min;

    public FixedReference(int n, int p, boolean wrap, boolean truncate) {
        this(n, p, wrap, truncate, RoundingMode.NEAREST_EVEN, 0);
    }

    /** fxpN_P rounding every result in {@code mode}, stochastically with {@code srBits} random bits. */
    public FixedReference(int n, int p, boolean wrap, RoundingMode mode, int srBits) {
        this(n, p, wrap, false, mode, srBits);
    }

    private FixedReference(int n, int p, boolean wrap, boolean truncate, RoundingMode mode, int srBits) {
        this.n = n;
        this.p = p;
        this.wrap = wrap;
        this.truncate = truncate;
        this.mode = mode;
        this.srBits = srBits;
        this.max = BigInteger.ONE.shiftLeft(n - 1).subtract(BigInteger.ONE);
        this.min = BigInteger.ONE.shiftLeft(n - 1).negate();
    }

    public int mask() { return n == 32 ? -1 : (1 << n) - 1; }

    /** The random bits stochastic rounding adds in the roundings that follow (an element's, as its library gets them). */
    public void useRandomBits(int bits) { random = bits; }

    /** x rounded to an integer: by {@code truncation} (toward zero, or the floor) with truncate, else in the mode. */
    private BigInteger rounded(Rational x, Function<Rational, BigInteger> truncation) {
        if (truncate) return truncation.apply(x);
        return mode == RoundingMode.STOCHASTIC ? Rounding.stochastic(x, srBits, random) : Rounding.of(x, mode);
    }

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
        return saturate(rounded(x, Rounding::towardZero));
    }

    public int add(int a, int b) { return fit(BigInteger.valueOf(signed(a) + signed(b))); }

    public int sub(int a, int b) { return fit(BigInteger.valueOf(signed(a) - signed(b))); }

    public int mul(int a, int b) {
        Rational x = scaledUp(value(a).multiply(value(b)));
        return fit(rounded(x, Rounding::floor));
    }

    public int div(int a, int b) {
        if (signed(b) == 0) return saturate(BigInteger.valueOf(Long.signum(signed(a))).multiply(max.add(BigInteger.ONE)));
        Rational x = scaledUp(value(a).divide(value(b)));
        return fit(rounded(x, Rounding::towardZero));
    }

    /** a divided by the integer n (a mean's count), exact, rounded as a quotient rounds, then brought into range. */
    public int divByInteger(int a, int n) {
        if (n == 0) return div(a, 0);
        Rational x = scaledUp(value(a).divide(Rational.of(n)));
        return fit(rounded(x, Rounding::towardZero));
    }

    public int min(int a, int b) { return signed(b) < signed(a) ? b : a; }

    public int max(int a, int b) { return signed(b) > signed(a) ? b : a; }

    public int neg(int a) { return fit(BigInteger.valueOf(-signed(a))); }

    public int abs(int a) { return fit(BigInteger.valueOf(Math.abs(signed(a)))); }

    /**
     * sqrt(s / 2^P) * 2^P = sqrt(s * 2^P), rounded (never a tie); negative gives 0. The root's integer part in units of
     * 2^-(k+1) (k the random bits, none but stochastic rounding's) plus a quarter unit when inexact stands for the
     * root: it lies strictly between the same two such units, so it rounds as the root does in every mode.
     */
    public int sqrt(int a) {
        if (signed(a) < 0) return 0;
        int finer = srBits + 1;
        BigInteger v = BigInteger.valueOf(signed(a)).shiftLeft(p + 2 * finer);
        BigInteger r = v.sqrt();
        Rational root = Rational.scaled(r.shiftLeft(1).add(r.multiply(r).equals(v) ? BigInteger.ZERO : BigInteger.ONE), -finer - 1);
        return fit(rounded(root, Rounding::floor));
    }

    public float toFloat(int a) { return (float) (signed(a) / Math.pow(2, p)); }

    public int toInt(int a) { return Rounding.towardZero(value(a)).intValueExact(); }

    public int fromInt(int i) { return fit(BigInteger.valueOf(i).shiftLeft(p)); }

    public int lowest() { return min.intValue() & mask(); }

    /** An exact sum of products (in units of 2^-2P) rounded once like a product, then brought into range. */
    public int roundAccumulated(BigInteger sumOfProducts) {
        Rational x = Rational.scaled(sumOfProducts, -p);
        return fit(rounded(x, Rounding::floor));
    }
}
