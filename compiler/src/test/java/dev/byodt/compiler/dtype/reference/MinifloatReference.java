package dev.byodt.compiler.dtype.reference;

import dev.byodt.compiler.dtype.RoundingMode;

import java.math.BigInteger;
import java.util.function.DoubleBinaryOperator;

/**
 * The exact meaning of a binary floating-point format with E exponent bits and M fraction bits, written from the
 * definitions of IEEE 754, the OCP 8-bit Floating Point and Microscaling (MX) v1.0 specifications and the ONNX
 * FNUZ types: a value is (-1)^s * 2^(e - bias) * 1.f (or 0.f * 2^(1 - bias) when e is 0 and there are fraction
 * bits); a result is the exact value rounded to the nearest representable number with ties to the even integer
 * significand, or in another {@link RoundingMode} as {@link Rounding#of} defines it, computed on rationals. Which patterns are special, and what happens where a format has no
 * infinity, no NaN, no negative zero or no sign, is the {@link Specials} style and {@code unsigned}. NaN
 * results are the library's canonical NaN. Special operands (NaN, infinity) and exact zero results follow
 * IEEE 754, which Java's double arithmetic implements, so those cases are decided in double.
 */
public final class MinifloatReference {
    /** Which patterns are not ordinary numbers. */
    public enum Specials {
        /** IEEE 754: exponent all ones is infinity (fraction 0) or NaN; overflow gives infinity. */
        IEEE,
        /** OCP FP8 E4M3: only the all-ones magnitude is NaN, no infinity; overflow saturates. */
        FN,
        /** ONNX FLOAT8E4M3FNUZ/E5M2FNUZ: bias 2^(E-1), the -0 pattern is the only NaN, zero is +0; saturating. */
        FNUZ,
        /** OCP MX FP6/FP4: every pattern a number; saturating, and a NaN result is +0. */
        NONE
    }

    private final int e;
    private final int m;
    private final Specials specials;
    private final boolean unsigned;
    private final RoundingMode mode;
    /** Stochastic rounding's random bits: how many, and those of the next rounding ({@link #useRandomBits}). */
    private final int srBits;
    private int random;
    private final int bias;
    private final int signBit;
    private final int magnitudeMask;
    private final Rational largest;
    private final int largestPattern;
    /** For formats of at most 16 bits: value() and toDouble() of every pattern, computed once (tests ask millions of times). */
    private final Rational[] values;
    private final double[] doubles;

    public static MinifloatReference ieee(int exponentBits, int fractionBits) {
        return new MinifloatReference(exponentBits, fractionBits, Specials.IEEE, false);
    }

    public MinifloatReference(int exponentBits, int fractionBits, Specials specials, boolean unsigned) {
        this(exponentBits, fractionBits, specials, unsigned, RoundingMode.NEAREST_EVEN);
    }

    public MinifloatReference(int exponentBits, int fractionBits, Specials specials, boolean unsigned, RoundingMode mode) {
        this(exponentBits, fractionBits, specials, unsigned, mode, 0);
    }

    /** A format rounding in {@code mode}, stochastically with {@code srBits} random bits. */
    public MinifloatReference(int exponentBits, int fractionBits, Specials specials, boolean unsigned, RoundingMode mode, int srBits) {
        this.mode = mode;
        this.srBits = srBits;
        this.e = exponentBits;
        this.m = fractionBits;
        this.specials = specials;
        this.unsigned = unsigned;
        this.bias = (1 << (e - 1)) - (specials == Specials.FNUZ ? 0 : 1);
        this.signBit = unsigned ? 0 : 1 << (e + m);
        this.magnitudeMask = (1 << (e + m)) - 1;
        int top = 0;
        for (int a = 0; a <= magnitudeMask; a++) {
            if (isFinite(a) && exactValue(a).compareTo(exactValue(top)) > 0) top = a;
        }
        this.largestPattern = top;
        this.largest = exactValue(top);
        boolean small = bits() <= 16;
        this.values = small ? new Rational[count()] : null;
        this.doubles = small ? new double[count()] : null;
        for (int a = 0; small && a < count(); a++) {
            values[a] = exactValue(a);
            doubles[a] = exactDouble(a);
        }
    }

    public int bits() { return (unsigned ? 0 : 1) + e + m; }

    public int count() { return 1 << bits(); }

    /** The sign bit's mask (0 for an unsigned format). */
    public int signBit() { return signBit; }

    public boolean hasInfinity() { return specials == Specials.IEEE; }

    public boolean hasNaN() { return specials != Specials.NONE; }

    public boolean isNaN(int a) {
        int mag = a & magnitudeMask;
        return switch (specials) {
            case IEEE -> (mag >> m) == (1 << e) - 1 && (mag & ((1 << m) - 1)) != 0;
            case FN -> mag == magnitudeMask;
            case FNUZ -> a == signBit;
            case NONE -> false;
        };
    }

    public boolean isInfinite(int a) {
        int mag = a & magnitudeMask;
        return specials == Specials.IEEE && mag == ((1 << e) - 1) << m;
    }

    public boolean isFinite(int a) { return !isNaN(a) && !isInfinite(a); }

    public int nan() {
        return switch (specials) {
            case IEEE -> (((1 << e) - 1) << m) | (1 << (m - 1));
            case FN -> magnitudeMask;
            case FNUZ -> signBit;
            case NONE -> 0;
        };
    }

    public int infinity(boolean negative) { return (negative ? signBit : 0) | (((1 << e) - 1) << m); }

    public int largestFinite(boolean negative) { return (negative ? signBit : 0) | largestPattern; }

    /** The exact value of a finite pattern. */
    public Rational value(int a) { return values != null ? values[a] : exactValue(a); }

    private Rational exactValue(int a) {
        int biased = (a & magnitudeMask) >> m;
        int fraction = a & ((1 << m) - 1);
        Rational v = biased == 0 && m > 0
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
     * x rounded to the format: the exponent of x, floored at the smallest normal exponent (1 - bias, or -bias
     * without fraction bits, where there are no subnormals), fixes the quantum 2^(exponent - M); x / quantum
     * rounds to an integer in the mode; a result above the largest finite value overflows (to infinity in the
     * IEEE style where the mode says so, else to the largest finite value). A zero result takes the sign
     * {@code negativeZero} where the format has -0; without zero (no fraction bits) the smallest value is the
     * nearest. An unsigned format has no negative numbers: a negative x that does not round to zero is NaN.
     */
    public int round(Rational x, boolean negativeZero) {
        boolean negative = x.signum() < 0 || (x.signum() == 0 && negativeZero);
        int sign = negative && specials != Specials.FNUZ ? signBit : 0;
        if (x.signum() == 0 && m > 0) return sign;
        Rational magnitude = x.abs();
        int smallestNormal = m > 0 ? 1 - bias : -bias;
        int exponent = x.signum() == 0 ? smallestNormal : Math.max(magnitude.floorLog2(), smallestNormal);
        Rational quanta = x.multiply(Rational.scaled(BigInteger.ONE, m - exponent));
        BigInteger n = (mode == RoundingMode.STOCHASTIC ? Rounding.stochasticMagnitude(quanta, srBits, random) : Rounding.of(quanta, mode)).abs();
        if (n.signum() == 0 && m > 0) return sign;
        if (unsigned && x.signum() < 0) return nan();
        if (n.signum() == 0) n = BigInteger.ONE;                            // no zero: the smallest value is nearest
        if (n.bitLength() > m + 1) { n = n.shiftRight(1); exponent++; }   // rounded up to the next binade
        Rational rounded = Rational.scaled(n, exponent - m);
        sign = negative ? signBit : 0;
        if (rounded.compareTo(largest) > 0) {
            return hasInfinity() && Rounding.overflowsToInfinity(mode, negative) ? infinity(negative) : sign | largestPattern;
        }
        int nv = n.intValueExact();
        if (nv < (1 << m)) return sign | nv;                                 // subnormal
        return sign | ((exponent + bias) << m) | (nv - (1 << m));
    }

    /** The random bits stochastic rounding adds in the roundings that follow (an element's, as its library gets them). */
    public void useRandomBits(int bits) { random = bits; }

    /** A double rounded to the format (NaN to the canonical NaN; infinity to infinity or saturated). */
    public int fromDouble(double d) {
        if (Double.isNaN(d)) return nan();
        if (Double.isInfinite(d) && !hasInfinity()) return unsigned && d < 0 ? nan() : largestFinite(d < 0);
        if (Double.isInfinite(d)) return infinity(d < 0);
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

    public int add(int a, int b) { return sum(a, b, false); }

    public int sub(int a, int b) { return sum(a, b, true); }

    /**
     * a + b, or a - b: an exact zero sum of finite operands is +0, or -0 when rounding down, except that x + x
     * keeps the sign of a zero x (IEEE 754 6.3).
     */
    private int sum(int a, int b, boolean subtract) {
        if (isFinite(a) && isFinite(b)) {
            Rational exact = subtract ? value(a).subtract(value(b)) : value(a).add(value(b));
            boolean negativeA = (a & signBit) != 0, negativeB = ((b & signBit) != 0) != subtract;
            boolean bothZero = value(a).signum() == 0 && value(b).signum() == 0;
            boolean negativeZero = bothZero && negativeA == negativeB ? negativeA : mode == RoundingMode.DOWN;
            if (exact.signum() == 0) return round(Rational.ZERO, negativeZero);
        }
        return subtract ? arithmetic(a, b, (x, y) -> x - y, Rational::subtract) : arithmetic(a, b, Double::sum, Rational::add);
    }

    public int mul(int a, int b) {
        if (isFinite(a) && isFinite(b) && (value(a).signum() == 0 || value(b).signum() == 0)) {
            return round(Rational.ZERO, ((a ^ b) & signBit) != 0);          // a signed zero
        }
        return arithmetic(a, b, (x, y) -> x * y, Rational::multiply);
    }

    public int div(int a, int b) {
        if (isFinite(a) && isFinite(b) && value(b).signum() == 0) return fromDouble(toDouble(a) / toDouble(b));
        if (isFinite(a) && isFinite(b) && value(a).signum() == 0) return round(Rational.ZERO, ((a ^ b) & signBit) != 0);
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

    /**
     * The sign flipped (IEEE 754 5.5.1, NaN included), where the format can: with FNUZ zero and NaN stay (-0 is
     * NaN's pattern); in an unsigned format zero and NaN stay and every other value's negation is NaN.
     */
    public int neg(int a) {
        boolean keeps = isNaN(a) || isFinite(a) && value(a).signum() == 0;
        if (unsigned) return keeps ? a : nan();
        if (specials == Specials.FNUZ && keeps) return a;
        return a ^ signBit;
    }

    public int abs(int a) { return specials == Specials.FNUZ && isNaN(a) ? a : a & magnitudeMask; }

    /**
     * sqrt, exactly: with 2^k <= sqrt(v) < 2^(k+1), the root in units of 2^(k - M - 2) has the integer part
     * isqrt(floor(v / 4^(k - M - 2))), whose two lowest bits are the rounding bit and the first of the rest, and
     * the root is exact when that integer squared is the scaled v. That integer plus a quarter for an inexact
     * root rounds as the root does in every mode; stochastic rounding reads as many more bits of the root, units
     * that many times finer.
     */
    public int sqrt(int a) {
        if (isNaN(a)) return nan();
        if (isFinite(a) && value(a).signum() == 0) return a;
        if ((a & signBit) != 0) return nan();
        if (isInfinite(a)) return a;
        Rational v = value(a);
        int k = Math.floorDiv(v.floorLog2(), 2), unit = k - m - 2 - (mode == RoundingMode.STOCHASTIC ? srBits : 0);
        Rational scaled = v.multiply(Rational.scaled(BigInteger.ONE, -2 * unit));
        BigInteger root = Rounding.floor(scaled).sqrt();
        boolean exact = Rational.of(root.multiply(root)).compareTo(scaled) == 0;
        Rational standIn = Rational.of(root).add(exact ? Rational.ZERO : new Rational(BigInteger.ONE, BigInteger.valueOf(4)));
        return round(standIn.multiply(Rational.scaled(BigInteger.ONE, unit)), false);
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

    /** The smallest value: -infinity, the most negative finite value, or an unsigned format's smallest (pattern 0). */
    public int lowest() { return unsigned ? 0 : hasInfinity() ? infinity(true) : largestFinite(true); }
}
