package dev.byodt.compiler.dtype;

import java.util.OptionalDouble;

/**
 * The scales where a posit of {@code bits} bits and exponent size {@code es} keeps at least one fraction bit, and
 * the check that proves every value of a dot product under --accumulate dtype stays there, so that its roundings may
 * be posit.c's rounded_f32_with_fraction ({@link DatatypeOp#ROUNDED_F32_WITH_FRACTION}), which is rounded_f32 there.
 *
 * <p>A posit of scale s (2^s <= |x| < 2^(s+1)) keeps f(s) = bits - 3 - es - r fraction bits, r = k for k >= 0 and
 * -k - 1 below, k = floor(s / 2^es); its values of that scale are the multiples of its unit 2^(s - f(s)). The unit's
 * exponent s - f(s) never decreases as s grows (s gains 1, r changes by at most 1), so over values below 2^t the
 * unit is at most the one of scale t - 1.
 *
 * <p>The sum of a dot product (RoundedFloat32Accumulator) computes, for each of its K terms, p = q(a b) and
 * acc = q(acc + p) in float32, q rounding to the posit, from acc = 0; a and b are posits and float32 holds a b
 * exactly (arithmeticInFloat32). Let m be min|a| min|b| over the nonzero operands and M = max|a| max|b|. The check
 * asks m >= 2^L, where L is the least scale such that L - f(L) is still in the range (L itself is then), and
 * K M <= 2^(T - 2) (a factor 2 spare for the rounding of the product in double), where T is the largest t with
 * f(t - 1) >= 1 and K (2^-f(t - 1) + 2^-23) < 1. Then every float32 q sees is zero or of a scale in the range:
 * <ul>
 *   <li>From below: a nonzero product has |a b| >= m >= 2^L, and q is monotone and 2^L a posit, so |p| >= 2^L and p
 *       is a multiple of the unit of scale L, G = 2^(L - f(L)). By induction acc is one too: acc + p is a multiple
 *       of G, and so is its float32 (a multiple of G that float32 rounds is rounded to a coarser power of two); q
 *       keeps that: at |y| >= 2^L it rounds to a multiple of a unit >= G, and below 2^L the multiple of G is a posit
 *       already (the units there are at most G), so q(y) = y. Every nonzero value is therefore at least G, whose
 *       scale is in the range. (Cancellation cannot reach below G; this is why L has room below it.)</li>
 *   <li>From above: while every value is below 2^T, q moves a value by at most half the unit of scale T - 1,
 *       2^(T - 1 - f(T - 1)) / 2, and float32's sum by at most 2^(T - 24) / 2, so each term adds at most M plus
 *       E = 2^(T - 1 - f(T - 1)) + 2^(T - 24) to |acc|: after K terms, |acc| <= K M + K E < 2^(T - 1) + 2^(T - 1).</li>
 * </ul>
 * A NaN or infinity (NaR decodes to a NaN) fails both comparisons, so such operands keep rounded_f32.
 */
public record PositScales(int bits, int es) {
    /** The fraction bits of a posit of scale {@code scale}, negative where the regime leaves none. */
    public int fractionBits(int scale) {
        int k = Math.floorDiv(scale, 1 << es);
        return bits - 3 - es - (k >= 0 ? k : -k - 1);
    }

    /** The least scale with a fraction bit: k = -(bits - 3 - es). */
    public int lowestScale() { return -(bits - 3 - es) << es; }

    /** The largest scale with a fraction bit: k = bits - 4 - es. */
    public int highestScale() { return ((bits - 3 - es) << es) - 1; }

    /** 2^L: the least min|a| min|b| of nonzero operands the check accepts. */
    public double leastProduct() {
        int scale = lowestScale();
        while (scale - fractionBits(scale) < lowestScale()) scale++;
        return Math.scalb(1.0, scale);
    }

    /** 2^(T - 2): the largest K max|a| max|b| the check accepts for sums of {@code terms} products, or empty for none. */
    public OptionalDouble largestSum(long terms) {
        for (int top = highestScale() + 1; top > lowestScale(); top--) {
            if (terms * (Math.scalb(1.0, -fractionBits(top - 1)) + Math.scalb(1.0, -23)) < 1) return OptionalDouble.of(Math.scalb(1.0, top - 2));
        }
        return OptionalDouble.empty();
    }
}
