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
        BigDecimal remainder = quotientAndRemainder[1];
        return onGrid(quotientAndRemainder[0].toBigIntegerExact().longValueExact(), remainder.signum() > 0,
            remainder.multiply(BigDecimal.TWO).compareTo(scaledDenominator), shift, direction);
    }

    /**
     * The same for the quotient {@code numerator / (denominator * factor)} of doubles, in double arithmetic
     * ({@link DoubleQuotient}) where that holds it, which is nearly always.
     */
    @Override
    public double round(double numerator, double denominator, double factor, Direction direction) {
        if (numerator == 0) return hasZero ? 0 : smallest();
        // The midpoints q 2^shift = multiple + 1/2 must be doubles too: multiple < 2^(fractionBits + 1) <= 2^52.
        DoubleQuotient q = fractionBits <= 51 ? DoubleQuotient.of(numerator, denominator, factor) : null;
        if (q == null) return ElementGrid.super.round(numerator, denominator, factor, direction);
        int floorLog2 = q.floorLog2(), exponent = Math.max(floorLog2, minExponent);
        int shift = fractionBits - exponent;
        // Below a quarter, q 2^shift is a multiple 0 with a remainder under half, however far below (and
        // scaling it there could leave the normal doubles).
        if (floorLog2 + shift < -2) return onGrid(0, true, -1, shift, direction);
        DoubleQuotient scaled = q.scaled(shift);
        double floor = Math.floor(scaled.nearest());
        int fromFloor = scaled.compareTo(floor);
        long multiple = (long) floor - (fromFloor < 0 ? 1 : 0);
        return onGrid(multiple, fromFloor != 0, scaled.compareTo(multiple + 0.5), shift, direction);
    }

    /**
     * The grid point for q 2^shift = multiple + r, 0 <= r < 1, given whether r > 0 ({@code inexact}) and the sign
     * of r - 1/2 ({@code half}).
     */
    private double onGrid(long multiple, boolean inexact, int half, int shift, Direction direction) {
        boolean odd = (multiple & 1) == 1;
        boolean stepUp = switch (direction) {
            case UP -> inexact;
            case TOWARD_ZERO -> false;
            case NEAREST_AWAY -> half >= 0;
            case ODD -> inexact && !odd;
            case NEAREST_EVEN -> half > 0 || (half == 0 && odd);
        };
        double value = Math.scalb((double) (multiple + (stepUp ? 1 : 0)), -shift);
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

    /** floor(log2(numerator / (denominator * factor))) of a positive quotient of doubles, exactly. */
    public static int floorLog2(double numerator, double denominator, double factor) {
        DoubleQuotient q = DoubleQuotient.of(numerator, denominator, factor);
        return q != null ? q.floorLog2() : floorLog2(new BigDecimal(numerator), exactProduct(denominator, factor));
    }

    /** ceil(log2(numerator / (denominator * factor))) of a positive quotient of doubles, exactly. */
    public static int ceilLog2(double numerator, double denominator, double factor) {
        int floor = floorLog2(numerator, denominator, factor);
        return compareWithPowerOfTwo(numerator, denominator, factor, floor) == 0 ? floor : floor + 1;
    }

    /** The sign of numerator / (denominator * factor) - 2^exponent, for doubles. */
    public static int compareWithPowerOfTwo(double numerator, double denominator, double factor, int exponent) {
        DoubleQuotient q = Math.abs(exponent) <= 1000 ? DoubleQuotient.of(numerator, denominator, factor) : null;
        return q != null ? q.compareTo(Math.scalb(1.0, exponent))
            : compareWithPowerOfTwo(new BigDecimal(numerator), exactProduct(denominator, factor), exponent);
    }

    static BigDecimal exactProduct(double a, double b) { return new BigDecimal(a).multiply(new BigDecimal(b)); }

    /** The sign of numerator / denominator - 2^exponent. */
    private static int compareWithPowerOfTwo(BigDecimal numerator, BigDecimal denominator, int exponent) {
        return exponent >= 0
            ? numerator.compareTo(denominator.multiply(powerOfTwo(exponent)))
            : numerator.multiply(powerOfTwo(-exponent)).compareTo(denominator);
    }

    private static BigDecimal powerOfTwo(int exponent) { return new BigDecimal(BigInteger.ONE.shiftLeft(exponent)); }
}
