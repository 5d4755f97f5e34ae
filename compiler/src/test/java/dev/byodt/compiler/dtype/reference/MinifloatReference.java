package dev.byodt.compiler.dtype.reference;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.function.DoubleBinaryOperator;

/**
 * The exact meaning of an IEEE 754-style binary format with E exponent bits and M fraction bits (or the OCP
 * 8-bit "E4M3" variant: no infinity, only S.1111.111 is NaN, saturating), written from the standards'
 * definitions: a value is (-1)^s * 2^(e - bias) * 1.f (or 0.f * 2^(1 - bias)); a result is the exact value
 * rounded to the nearest representable number with ties to the even significand, computed on rationals.
 * NaN results are the library's canonical NaN. Special operands (NaN, infinity) and exact zero results follow
 * IEEE 754, which Java's double arithmetic implements, so those cases are decided in double.
 */
public final class MinifloatReference {
    private final int e;
    private final int m;
    private final boolean ocp;
    private final int bias;
    private final int signBit;
    private final int magnitudeMask;
    private final Rational largest;
    /** For formats of at most 16 bits: value() and toDouble() of every pattern, computed once (tests ask millions of times). */
    private final Rational[] values;
    private final double[] doubles;

    public MinifloatReference(int exponentBits, int fractionBits, boolean ocpFinite) {
        this.e = exponentBits;
        this.m = fractionBits;
        this.ocp = ocpFinite;
        this.bias = (1 << (e - 1)) - 1;
        this.signBit = 1 << (e + m);
        this.magnitudeMask = signBit - 1;
        this.largest = exactValue(ocp ? magnitudeMask - 1 : ((((1 << e) - 2) << m) | ((1 << m) - 1)));
        boolean small = bits() <= 16;
        this.values = small ? new Rational[count()] : null;
        this.doubles = small ? new double[count()] : null;
        for (int a = 0; small && a < count(); a++) {
            values[a] = exactValue(a);
            doubles[a] = exactDouble(a);
        }
    }

    public int bits() { return 1 + e + m; }

    public int count() { return 1 << bits(); }

    public boolean isNaN(int a) {
        int mag = a & magnitudeMask;
        return ocp ? mag == magnitudeMask : (mag >> m) == (1 << e) - 1 && (mag & ((1 << m) - 1)) != 0;
    }

    public boolean isInfinite(int a) {
        int mag = a & magnitudeMask;
        return !ocp && mag == ((1 << e) - 1) << m;
    }

    public boolean isFinite(int a) { return !isNaN(a) && !isInfinite(a); }

    public int nan() { return ocp ? magnitudeMask : (((1 << e) - 1) << m) | (1 << (m - 1)); }

    public int infinity(boolean negative) { return (negative ? signBit : 0) | (((1 << e) - 1) << m); }

    public int largestFinite(boolean negative) { return round(negative ? largest.negate() : largest, negative); }

    /** The exact value of a finite pattern. */
    public Rational value(int a) { return values != null ? values[a] : exactValue(a); }

    private Rational exactValue(int a) {
        int biased = (a & magnitudeMask) >> m;
        int fraction = a & ((1 << m) - 1);
        Rational v = biased == 0
            ? Rational.scaled(BigInteger.valueOf(fraction), 1 - bias - m)
            : Rational.scaled(BigInteger.valueOf((1 << m) + fraction), biased - bias - m);
        return (a & signBit) != 0 ? v.negate() : v;
    }

    /** The value as a double (exact for the formats tested here), NaN and infinities included. */
    public double toDouble(int a) { return doubles != null ? doubles[a] : exactDouble(a); }

    private double exactDouble(int a) {
        if (isNaN(a)) return Double.NaN;
        if (isInfinite(a)) return (a & signBit) != 0 ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        double d = value(a).toBigDecimal(40).doubleValue();
        return (a & signBit) != 0 && d == 0 ? -0.0 : d;
    }

    /**
     * x rounded to the format: the exponent of x, floored at the subnormal exponent, fixes the quantum
     * 2^(exponent - M); x / quantum rounds to the nearest integer, ties to even; a result above the largest
     * finite value overflows (to infinity, or to the largest finite value for OCP E4M3). A zero result takes
     * the sign {@code negativeZero}.
     */
    public int round(Rational x, boolean negativeZero) {
        boolean negative = x.signum() < 0 || (x.signum() == 0 && negativeZero);
        int sign = negative ? signBit : 0;
        if (x.signum() == 0) return sign;
        Rational magnitude = x.abs();
        int exponent = Math.max(magnitude.floorLog2(), 1 - bias);
        BigInteger n = Rounding.nearestEven(magnitude.multiply(Rational.scaled(BigInteger.ONE, m - exponent)));
        if (n.signum() == 0) return sign;
        if (n.bitLength() > m + 1) { n = n.shiftRight(1); exponent++; }   // rounded up to the next binade
        Rational rounded = Rational.scaled(n, exponent - m);
        if (rounded.compareTo(largest) > 0) return ocp ? sign | (magnitudeMask - 1) : infinity(negative);
        int nv = n.intValueExact();
        if (nv < (1 << m)) return sign | nv;                                 // subnormal
        return sign | ((exponent + bias) << m) | (nv - (1 << m));
    }

    /** A double rounded to the format (NaN to the canonical NaN; infinity to infinity or, for OCP, saturated). */
    public int fromDouble(double d) {
        if (Double.isNaN(d)) return nan();
        if (Double.isInfinite(d)) return ocp ? largestFinite(d < 0) : infinity(d < 0);
        return round(Rational.of(d), 1 / d < 0);
    }

    /** An arithmetic operation: exact on finite nonzero results, IEEE specials decided by the double operation. */
    public int arithmetic(int a, int b, DoubleBinaryOperator ieee, java.util.function.BinaryOperator<Rational> exact) {
        double x = toDouble(a), y = toDouble(b);
        double special = ieee.applyAsDouble(x, y);
        if (!isFinite(a) || !isFinite(b) || Double.isNaN(special) || special == 0 && isExactZero(a, b, exact)) {
            return fromDouble(special);
        }
        return round(exact.apply(value(a), value(b)), false);
    }

    private boolean isExactZero(int a, int b, java.util.function.BinaryOperator<Rational> exact) {
        return exact.apply(value(a), value(b)).signum() == 0;
    }

    public int add(int a, int b) { return arithmetic(a, b, Double::sum, Rational::add); }

    public int sub(int a, int b) { return arithmetic(a, b, (x, y) -> x - y, Rational::subtract); }

    public int mul(int a, int b) {
        if (isFinite(a) && isFinite(b) && (value(a).signum() == 0 || value(b).signum() == 0)) {
            return ((a ^ b) & signBit) != 0 ? signBit : 0;                  // a signed zero
        }
        return arithmetic(a, b, (x, y) -> x * y, Rational::multiply);
    }

    public int div(int a, int b) {
        if (isFinite(a) && isFinite(b) && value(b).signum() == 0) return fromDouble(toDouble(a) / toDouble(b));
        if (isFinite(a) && isFinite(b) && value(a).signum() == 0) return ((a ^ b) & signBit) != 0 ? signBit : 0;
        return arithmetic(a, b, (x, y) -> x / y, Rational::divide);
    }

    /** ONNX Min/Max: NaN in gives NaN; of equal operands (+0, -0) the first. */
    public int min(int a, int b) {
        if (isNaN(a) || isNaN(b)) return nan();
        return toDouble(b) < toDouble(a) ? b : a;
    }

    public int max(int a, int b) {
        if (isNaN(a) || isNaN(b)) return nan();
        return toDouble(b) > toDouble(a) ? b : a;
    }

    public int neg(int a) { return a ^ signBit; }

    public int abs(int a) { return a & magnitudeMask; }

    /** sqrt: never a tie (a midpoint's square has more significant bits than a format value), so 60 digits decide it. */
    public int sqrt(int a) {
        if (isNaN(a)) return nan();
        if (isFinite(a) && value(a).signum() == 0) return a;
        if ((a & signBit) != 0) return nan();
        if (isInfinite(a)) return a;
        BigDecimal root = value(a).toBigDecimal(80).sqrt(new MathContext(60));
        return round(Rational.of(root), false);
    }

    /** An IEEE comparison through the exact values (doubles hold them exactly): NaN is unordered. */
    public boolean lt(int a, int b) { return toDouble(a) < toDouble(b); }

    public float toFloat(int a) { return (float) toDouble(a); }

    /** Truncation toward zero, saturated to int32; NaN gives 0. */
    public int toInt(int a) {
        if (isNaN(a)) return 0;
        if (isInfinite(a)) return (a & signBit) != 0 ? Integer.MIN_VALUE : Integer.MAX_VALUE;
        BigInteger t = Rounding.towardZero(value(a));
        return t.max(BigInteger.valueOf(Integer.MIN_VALUE)).min(BigInteger.valueOf(Integer.MAX_VALUE)).intValue();
    }

    public int fromInt(int i) { return round(Rational.of(i), false); }

    public int lowest() { return ocp ? largestFinite(true) : infinity(true); }
}
