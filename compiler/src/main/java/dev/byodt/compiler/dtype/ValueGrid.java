package dev.byodt.compiler.dtype;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A datatype's finite values as a grid, what block quantization needs to round onto an element or scale
 * datatype in exact arithmetic without calling its library: in each binade 2^e <= |v| < 2^(e+1) with
 * e >= {@code minExponent} the values are the multiples of 2^(e - fractionBits); below 2^minExponent the
 * multiples of 2^(minExponent - fractionBits) (subnormals), zero included when {@code hasZero}; nothing above
 * {@code largest}. A minifloat is such a grid with its own M and smallest normal binade; fixed point fxpN_P is
 * one with N-2 fraction bits whose smallest binade is its largest, so that the step is 2^-P everywhere.
 *
 * @param signed whether negative values exist (an unsigned grid, such as a scale's, holds magnitudes only)
 */
public record ValueGrid(int fractionBits, int minExponent, double largest, boolean hasZero, boolean signed) implements ElementGrid {
    /**
     * How a magnitude between two grid points goes to one of them: the nearest (ties to the even multiple of the
     * step, or to the larger), the larger (UP, away from zero), the smaller (toward zero), or the odd multiple.
     */
    public enum Direction {
        NEAREST_EVEN, NEAREST_AWAY, UP, TOWARD_ZERO, ODD;

        /**
         * The direction of a magnitude whose value has sign {@code negative} under a deterministic --rounding
         * mode: up and down turn by the sign.
         */
        public static Direction of(RoundingMode mode, boolean negative) {
            return switch (mode) {
                case NEAREST_EVEN -> NEAREST_EVEN;
                case NEAREST_AWAY -> NEAREST_AWAY;
                case TOWARD_ZERO -> TOWARD_ZERO;
                case UP -> negative ? TOWARD_ZERO : UP;
                case DOWN -> negative ? UP : TOWARD_ZERO;
                case ODD -> ODD;
                case STOCHASTIC -> throw new IllegalArgumentException("a grid rounds in the deterministic modes only");
            };
        }
    }

    public ValueGrid {
        if (fractionBits < 0 || fractionBits > 52) throw new IllegalArgumentException("fraction bits " + fractionBits);
        if (!(largest > 0) || Double.isInfinite(largest)) throw new IllegalArgumentException("largest " + largest);
    }

    /**
     * fxpN_P's values k 2^-P, |k| <= 2^(N-1) - 1: symmetric, as block elements are clamped to the largest
     * magnitude (OCP MX INT8's range), so -2^(N-1-P) is not on the grid.
     */
    public static ValueGrid fixedPoint(int bits, int fractionBits) {
        return new ValueGrid(bits - 2, bits - 2 - fractionBits, Math.scalb((double) ((1L << (bits - 1)) - 1), -fractionBits), true, true);
    }

    /** The smallest positive value: the last subnormal step, or 2^minExponent when there is no zero below it. */
    @Override
    public double smallest() { return Math.scalb(1.0, hasZero ? minExponent - fractionBits : minExponent); }

    @Override
    public int largestBinadeFractionBits() { return fractionBits; }

    /** The largest plus half its step: magnitudes up to here round to the largest value anyway. */
    @Override
    public double midpointAboveLargest() { return largest + Math.scalb(1.0, maxExponent() - fractionBits - 1); }

    @Override
    public boolean float32HoldsEvery() {
        return fractionBits <= 23 && smallestExponent() >= -149 && maxExponent() <= 127;
    }

    /**
     * The grid point for the exact positive quotient {@code numerator / denominator} (both nonnegative,
     * denominator positive) in {@code direction}, clamped to [smallest or 0, largest]. A grid without zero gives
     * its smallest value for 0.
     */
    @Override
    public double round(BigDecimal numerator, BigDecimal denominator, Direction direction) {
        if (numerator.signum() == 0) return hasZero ? 0 : smallest();
        int exponent = Math.max(floorLog2(numerator, denominator), minExponent);
        int shift = fractionBits - exponent;
        BigDecimal scaledNumerator = shift >= 0 ? numerator.multiply(powerOfTwo(shift)) : numerator;
        BigDecimal scaledDenominator = shift >= 0 ? denominator : denominator.multiply(powerOfTwo(-shift));
        BigDecimal[] quotientAndRemainder = scaledNumerator.divideAndRemainder(scaledDenominator);
        BigInteger multiple = quotientAndRemainder[0].toBigIntegerExact();
        BigDecimal remainder = quotientAndRemainder[1];
        int half = remainder.multiply(BigDecimal.TWO).compareTo(scaledDenominator);
        boolean inexact = remainder.signum() > 0;
        boolean stepUp = switch (direction) {
            case UP -> inexact;
            case TOWARD_ZERO -> false;
            case NEAREST_AWAY -> half >= 0;
            case ODD -> inexact && !multiple.testBit(0);
            case NEAREST_EVEN -> half > 0 || (half == 0 && multiple.testBit(0));
        };
        if (stepUp) multiple = multiple.add(BigInteger.ONE);
        double value = Math.scalb(multiple.doubleValue(), -shift);
        if (value > largest) return largest;
        if (value == 0 && !hasZero) return smallest();
        return value;
    }

    /**
     * The grid point for the exact positive quotient {@code numerator / denominator} rounded stochastically: from
     * the grid point toward zero (clamped to the largest), one step up when the first {@code bits} bits of the
     * fraction of a step cut off, read as an integer c, and the {@code bits} random bits {@code random} carry:
     * c + random >= 2^bits, with probability c / 2^bits.
     */
    @Override
    public double roundStochastically(BigDecimal numerator, BigDecimal denominator, int random, int bits) {
        double below = round(numerator, denominator, Direction.TOWARD_ZERO);
        if (numerator.signum() == 0 || below == largest) return below;
        double step = Math.scalb(1.0, Math.max(floorLog2(numerator, denominator), minExponent) - fractionBits);
        // c = floor((q - below) / step * 2^bits), q = numerator / denominator: exact, both sides scaled by the denominator.
        BigDecimal cut = numerator.subtract(new BigDecimal(below).multiply(denominator)).multiply(powerOfTwo(bits));
        long c = cut.divideToIntegralValue(new BigDecimal(step).multiply(denominator)).longValueExact();
        return c + random >= 1L << bits ? Math.min(below + step, largest) : below;
    }

    /** floor(log2(numerator / denominator)) of a positive quotient, exactly. */
    public static int floorLog2(BigDecimal numerator, BigDecimal denominator) {
        int estimate = Math.getExponent(numerator.doubleValue()) - Math.getExponent(denominator.doubleValue());
        while (compareWithPowerOfTwo(numerator, denominator, estimate) < 0) estimate--;
        while (compareWithPowerOfTwo(numerator, denominator, estimate + 1) >= 0) estimate++;
        return estimate;
    }

    /** ceil(log2(numerator / denominator)) of a positive quotient, exactly. */
    public static int ceilLog2(BigDecimal numerator, BigDecimal denominator) {
        int floor = floorLog2(numerator, denominator);
        return compareWithPowerOfTwo(numerator, denominator, floor) == 0 ? floor : floor + 1;
    }

    /** The sign of numerator / denominator - 2^exponent. */
    public static int compareWithPowerOfTwo(BigDecimal numerator, BigDecimal denominator, int exponent) {
        return exponent >= 0
            ? numerator.compareTo(denominator.multiply(powerOfTwo(exponent)))
            : numerator.multiply(powerOfTwo(-exponent)).compareTo(denominator);
    }

    private static BigDecimal powerOfTwo(int exponent) { return new BigDecimal(BigInteger.ONE.shiftLeft(exponent)); }
}
