package dev.byodt.compiler.dtype;

import java.math.BigDecimal;

/**
 * A datatype's finite values as block quantization needs them, to round onto them in exact arithmetic without
 * calling the datatype's library: a {@link ValueGrid} (the same number of fraction bits in every binade:
 * minifloats, fixed point) or a {@link PositGrid} (posits, whose precision tapers). Any of them can be a block
 * datatype's element; only a ValueGrid can be its scale.
 */
public sealed interface ElementGrid permits ValueGrid, PositGrid {
    /** The largest finite value. */
    double largest();

    /** The smallest positive value. */
    double smallest();

    /** Whether negative values exist (an unsigned grid, such as a scale's, holds magnitudes only). */
    boolean signed();

    /** Whether 0 is a value. */
    boolean hasZero();

    /**
     * The fraction bits of the values in the binade of the largest value: the M of the {@code even} scale rule
     * (a posit's maxpos is alone in its binade: 0).
     */
    int largestBinadeFractionBits();

    /**
     * Halfway between the largest value and the one the format would have above it without its limit, one
     * step further: the {@code midmax} rule's bound.
     */
    double midpointAboveLargest();

    /** Whether every value is a float32, as the run-time quantizer and the dot products keep elements and scales. */
    boolean float32HoldsEvery();

    /**
     * The value for the exact positive quotient {@code numerator / denominator} (both nonnegative, denominator
     * positive) in {@code direction}, clamped to the largest value; 0 for 0 where the grid has it.
     */
    double round(BigDecimal numerator, BigDecimal denominator, ValueGrid.Direction direction);

    /** The same for the quotient {@code numerator / (denominator * factor)} of doubles. */
    default double round(double numerator, double denominator, double factor, ValueGrid.Direction direction) {
        return round(new BigDecimal(numerator), ValueGrid.exactProduct(denominator, factor), direction);
    }

    /**
     * The value for the exact positive quotient {@code numerator / denominator} rounded stochastically with the
     * {@code bits} random bits {@code random}: from the value toward zero up to the next one when the first
     * {@code bits} bits of its fraction of the distance between them, read as an integer c, and {@code random}
     * carry (c + random >= 2^bits, with probability c / 2^bits), clamped as {@link #round} clamps.
     */
    double roundStochastically(BigDecimal numerator, BigDecimal denominator, int random, int bits);

    /** floor(log2(largest)): the element's emax of the OCP MX rule. */
    default int maxExponent() { return Math.getExponent(largest()); }

    /** The exponent of the smallest power of two on the grid. */
    default int smallestExponent() { return Math.getExponent(smallest()); }
}
