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
 * M <= {@link #largestProduct}(K), the largest M for which the worst case of the sums' growth below stays under
 * 2^T, T = {@link #highestScale} + 1. Then every float32 q sees is zero or of a scale in the range:
 * <ul>
 *   <li>From below: a nonzero product has |a b| >= m >= 2^L, and q is monotone and 2^L a posit, so |p| >= 2^L and p
 *       is a multiple of the unit of scale L, G = 2^(L - f(L)). By induction acc is one too: acc + p is a multiple
 *       of G, and so is its float32 (a multiple of G that float32 rounds is rounded to a coarser power of two); q
 *       keeps that: at |y| >= 2^L it rounds to a multiple of a unit >= G, and below 2^L the multiple of G is a posit
 *       already (the units there are at most G), so q(y) = y. Every nonzero value is therefore at least G, whose
 *       scale is in the range. (Cancellation cannot reach below G; this is why L has room below it.)</li>
 *   <li>From above: q is monotone, so |q(y)| <= q(V) for any V >= |y|, and q(V) <= up(V) = V + half the unit of
 *       V's scale, or 2^S for V below 2^S, S the least scale with a fraction bit (2^S is a posit). So
 *       |p| <= P = up(M), and with B bounding |acc|, every float32 sum y = fl(acc + p) has |y| <= Y = (B + P)(1 + 2^-24),
 *       and the next |acc| = |q(y)| <= up(Y). It is also at most max(2^S, B + 2 (Y - B)): acc is a posit, and
 *       where y is beyond 2^S and below 2^T, posits are evenly spaced within each scale and q rounds to a nearest
 *       one, so |q(y) - y| <= |acc - y| and |q(y)| <= |acc| + 2 |y - acc|, where |y - acc| <= |p| + 2^-24 |acc + p|
 *       <= Y - B (at or below 2^S, |q(y)| <= 2^S). Each step takes the smaller bound: from B = 0, K such steps
 *       bound every value a sum of K terms reaches, and the second keeps the growth the roundings may add to
 *       twice the terms' (about 2 K M), where the first alone compounds half a unit every step, at every scale
 *       the sum passes (it allowed M of 7.5e-4 for posit16's 25,088 terms of a LeNet-5 weight's gradient, where
 *       this allows 2^28.3). {@link #largestProduct} finds, by bisection, the largest M whose K steps stay
 *       below 2^T, each step's float32 factor taken as 1 + 2^-23 so that the bound's own double arithmetic cannot
 *       carry it over (the check's max|a| max|b| is exact in double).</li>
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

    /** Terms beyond which {@link #largestProduct} gives none: the bisection runs its steps per term. */
    private static final long MOST_TERMS = 1L << 18;

    /**
     * The largest max|a| max|b| the check accepts for sums of {@code terms} products (see above), or empty where
     * there are too many terms to bound.
     */
    public OptionalDouble largestProduct(long terms) {
        if (terms > MOST_TERMS) return OptionalDouble.empty();
        // A product the check accepts is at least leastProduct(), so no smaller bound is of use.
        double below = Math.log(leastProduct()) / Math.log(2), above = highestScale() + 1.0;
        if (!staysInRange(leastProduct(), terms)) return OptionalDouble.empty();
        for (int i = 0; i < 40; i++) {
            double middle = (below + above) / 2;
            if (staysInRange(Math.pow(2, middle), terms)) below = middle;
            else above = middle;
        }
        return OptionalDouble.of(Math.pow(2, below));
    }

    /** Whether {@code terms} steps of the worst case above, products of at most {@code largest}, stay below 2^T. */
    private boolean staysInRange(double largest, long terms) {
        double limit = Math.scalb(1.0, highestScale() + 1);
        double product = roundedUp(largest);
        double sum = 0, floatSum = 0;
        for (long k = 0; k < terms && floatSum < limit; k++) {
            floatSum = (sum + product) * (1 + Math.scalb(1.0, -23));
            sum = Math.min(roundedUp(floatSum), Math.max(Math.scalb(1.0, lowestScale()), sum + 2 * (floatSum - sum)));
        }
        return product < limit && floatSum < limit && sum < limit;
    }

    /** up(V): at least the posit V rounds to, V + half its scale's unit, or 2^S below 2^S. */
    private double roundedUp(double value) {
        if (value < Math.scalb(1.0, lowestScale())) return Math.scalb(1.0, lowestScale());
        int scale = Math.getExponent(value);
        return value + Math.scalb(1.0, scale - fractionBits(scale) - 1);
    }
}
