package dev.byodt.compiler.dtype.reference;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Function;

/**
 * tanh, sigmoid and exp of a fixed-point value s / 2^P (P <= 16), correctly rounded by a {@link FixedReference}.
 * Within 1 of +-1 or 0 by less than 2^-30 (tanh beyond 11, sigmoid beyond 22 in magnitude), every value rounds
 * as one 2^-60 away would: 1 - tanh x = 2 / (e^2x + 1) and the sigmoid's distance to 0 or 1, 1 / (1 + e^|x|), are
 * positive and below 2^-30, and no boundary of a format with at most 16 fraction bits lies in between. Elsewhere
 * Java's double functions decide where they can: Math.tanh is within 2.5 ulps, 1 / (1 + Math.exp(-x)) within 3,
 * so where rounding the double 8 ulps lower and higher gives the same pattern, that is the exact value's. Near a
 * rounding boundary (0, 1/2) the value is computed in 140-digit decimal arithmetic, through e^y by its Taylor
 * series at y / 2^k squared k times. e^x beyond 30 in magnitude is above 2^43 or below 2^-43, which saturates, or
 * rounds to 0, in any format of at most 32 bits and 16 fraction bits; Math.exp is within 1 ulp.
 */
public final class Hyperbolic {
    private static final MathContext MC = new MathContext(140);
    /** A value whose distance to 1 (or 0) is below 2^-30 rounds as one at this distance. */
    private static final Rational TINY = Rational.scaled(BigInteger.ONE, -60);

    private Hyperbolic() {}

    public static int tanh(FixedReference ref, long s, int p) {
        double x = s / Math.pow(2, p);
        if (Math.abs(x) >= 11) {
            Rational belowOne = Rational.of(1).subtract(TINY);
            return ref.fromReal(x < 0 ? belowOne.negate() : belowOne);
        }
        return rounded(ref, x, Math::tanh, a -> {
            BigDecimal e = exp(a.abs().multiply(BigDecimal.valueOf(2)));
            BigDecimal magnitude = e.subtract(BigDecimal.ONE).divide(e.add(BigDecimal.ONE), MC);
            return a.signum() < 0 ? magnitude.negate() : magnitude;
        });
    }

    public static int sigmoid(FixedReference ref, long s, int p) {
        double x = s / Math.pow(2, p);
        if (Math.abs(x) >= 22) return ref.fromReal(x < 0 ? TINY : Rational.of(1).subtract(TINY));
        return rounded(ref, x, a -> 1 / (1 + Math.exp(-a)), a -> BigDecimal.ONE.divide(BigDecimal.ONE.add(exp(a.negate())), MC));
    }

    public static int exp(FixedReference ref, long s, int p) {
        double x = s / Math.pow(2, p);
        if (Math.abs(x) >= 30) return ref.fromReal(x < 0 ? TINY : Rational.of(1L << 43));
        return rounded(ref, x, Math::exp, Hyperbolic::exp);
    }

    private static int rounded(FixedReference ref, double x, DoubleUnaryOperator approximate, Function<BigDecimal, BigDecimal> precise) {
        double y = approximate.applyAsDouble(x), margin = 8 * Math.ulp(y);
        int below = ref.fromDouble(y - margin), above = ref.fromDouble(y + margin);
        if (below == above) return below;
        return ref.fromReal(Rational.of(precise.apply(new BigDecimal(x))));
    }

    /** e^y for |y| <= 44: the Taylor series at y / 2^k (|y / 2^k| < 2^-10), squared k times. */
    static BigDecimal exp(BigDecimal y) {
        int k = Math.max(0, y.abs().toBigInteger().bitLength() + 10);
        BigDecimal r = y.divide(BigDecimal.valueOf(2).pow(k), MC), term = BigDecimal.ONE, sum = BigDecimal.ONE;
        for (int n = 1; term.abs().compareTo(BigDecimal.ONE.movePointLeft(150)) > 0; n++) {
            term = term.multiply(r, MC).divide(BigDecimal.valueOf(n), MC);
            sum = sum.add(term, MC);
        }
        for (int i = 0; i < k; i++) sum = sum.multiply(sum, MC);
        return sum;
    }
}
