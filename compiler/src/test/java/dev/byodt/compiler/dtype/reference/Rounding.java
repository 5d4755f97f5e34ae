package dev.byodt.compiler.dtype.reference;

import dev.byodt.compiler.dtype.RoundingMode;

import java.math.BigInteger;

/** Rounding an exact rational to an integer, by the rules the formats use. */
public final class Rounding {
    private Rounding() {}

    /** x rounded to the nearest integer, ties to the even integer. */
    public static BigInteger nearestEven(Rational x) {
        BigInteger[] qr = x.num().divideAndRemainder(x.den());
        BigInteger floor = x.num().signum() < 0 && qr[1].signum() != 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
        // fraction = x - floor, in [0, 1): compare 2 * fraction with 1.
        BigInteger twiceFractionNum = x.num().subtract(floor.multiply(x.den())).shiftLeft(1);
        int c = twiceFractionNum.compareTo(x.den());
        if (c > 0 || (c == 0 && floor.testBit(0))) return floor.add(BigInteger.ONE);
        return floor;
    }

    /** The integer part (toward zero). */
    public static BigInteger towardZero(Rational x) {
        return x.num().divide(x.den());
    }

    /** The largest integer <= x. */
    public static BigInteger floor(Rational x) { return floorAndFraction(x)[0]; }

    /**
     * floor(x) and (x - floor(x)) * den, which lies in [0, den): by shifts when den is a power of two (the values
     * of binary formats, their sums and products), else by one integer division.
     */
    private static BigInteger[] floorAndFraction(Rational x) {
        BigInteger den = x.den();
        if (den.bitCount() == 1) {
            int k = den.getLowestSetBit();
            BigInteger floor = x.num().shiftRight(k);                // an arithmetic shift: the floor of a negative too
            return new BigInteger[]{floor, x.num().subtract(floor.shiftLeft(k))};
        }
        BigInteger[] qr = x.num().divideAndRemainder(den);          // the quotient truncates toward zero
        return qr[1].signum() < 0 ? new BigInteger[]{qr[0].subtract(BigInteger.ONE), qr[1].add(den)} : qr;
    }

    /** The smallest integer >= x. */
    public static BigInteger ceil(Rational x) { return floor(x.negate()).negate(); }

    /**
     * x rounded to an integer in {@code mode}, from the mode's definition: the integer itself when x is one;
     * else one of floor(x) and floor(x) + 1, the nearer (on a tie the even one, or the one farther from zero),
     * the one nearer zero, the larger, the smaller, or the odd one. The fraction x - floor(x) places x between
     * the two, and twice it against 1 places x against their midpoint (the references round millions of values, so
     * this is most of their time).
     */
    public static BigInteger of(Rational x, RoundingMode mode) {
        BigInteger[] floorAndFraction = floorAndFraction(x);
        BigInteger below = floorAndFraction[0], fraction = floorAndFraction[1], above = below.add(BigInteger.ONE);
        if (fraction.signum() == 0) return below;
        boolean negative = x.signum() < 0;
        int toMidpoint = fraction.shiftLeft(1).compareTo(x.den());
        return switch (mode) {
            case NEAREST_EVEN -> toMidpoint > 0 || (toMidpoint == 0 && below.testBit(0)) ? above : below;
            case NEAREST_AWAY -> toMidpoint > 0 || (toMidpoint == 0 && !negative) ? above : below;
            case TOWARD_ZERO -> negative ? above : below;
            case UP -> above;
            case DOWN -> below;
            case ODD -> below.testBit(0) ? below : above;
            case STOCHASTIC -> throw new IllegalArgumentException("stochastic rounding needs its random bits: Rounding.stochastic");
        };
    }

    /**
     * x rounded stochastically with {@code bits} random bits {@code random}, as the standard definition has it:
     * the fraction x - floor(x) truncated to {@code bits} bits, plus random / 2^bits, carries into floor(x) + 1
     * when it reaches 1. Two's-complement formats round their value so (fixed point); sign-magnitude formats
     * their magnitude ({@link #stochasticMagnitude}).
     */
    public static BigInteger stochastic(Rational x, int bits, int random) {
        BigInteger below = floor(x);
        Rational fraction = x.subtract(Rational.of(below));
        BigInteger cut = floor(fraction.multiply(Rational.scaled(BigInteger.ONE, bits)));
        return cut.add(BigInteger.valueOf(random)).bitLength() > bits ? below.add(BigInteger.ONE) : below;
    }

    /** |x| rounded by {@link #stochastic}, with x's sign: the rounding of floats, whose sign is apart. */
    public static BigInteger stochasticMagnitude(Rational x, int bits, int random) {
        BigInteger magnitude = stochastic(x.abs(), bits, random);
        return x.signum() < 0 ? magnitude.negate() : magnitude;
    }

    /**
     * Whether a result beyond a format's largest finite value becomes infinity (where the mode rounds it away
     * from zero, as IEEE 754 7.4 says) rather than the largest finite value; to odd keeps it finite. Stochastic
     * rounding overflows as nearest does: a value that rounds up past the largest goes to infinity.
     */
    public static boolean overflowsToInfinity(RoundingMode mode, boolean negative) {
        return switch (mode) {
            case NEAREST_EVEN, NEAREST_AWAY -> true;
            case UP -> !negative;
            case DOWN -> negative;
            case TOWARD_ZERO, ODD -> false;
            case STOCHASTIC -> true;
        };
    }
}
