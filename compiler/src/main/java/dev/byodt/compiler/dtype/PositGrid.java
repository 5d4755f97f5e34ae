package dev.byodt.compiler.dtype;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The finite values of the posits of {@code bits} bits and exponent size {@code es} (Posit Standard 2022), as a
 * block format's element: 0 and +-minpos .. +-maxpos, maxpos = 2^((bits - 2) 2^es), minpos its reciprocal, with
 * a precision that tapers away from 1, so no {@link ValueGrid}. A value rounds as the standard rounds (section
 * 4.1): its infinitely long bit string cut after {@code bits} bits, the cut bits deciding the step up in the
 * mode (to nearest: the first cut bit, ties to the even pattern), maxpos and above to maxpos and minpos and below
 * to minpos in every mode, never 0 or NaR, as posit.c rounds. The cut is read off the bit string's first
 * {@code bits + 1} bits, which {@link #truncated} writes from the exact value's scale and fraction.
 */
public record PositGrid(int bits, int es) implements ElementGrid {
    public PositGrid {
        if (bits < 2 || bits > 32 || es < 0 || es > 3) throw new IllegalArgumentException("posit" + bits + " es " + es);
    }

    /** The pattern of maxpos, the largest positive one: 2^(bits - 1) - 1. */
    public long largestPattern() { return (1L << (bits - 1)) - 1; }

    /** The exponent of maxpos: (bits - 2) 2^es. */
    private int maxScale() { return (bits - 2) << es; }

    @Override
    public double largest() { return Math.scalb(1.0, maxScale()); }

    @Override
    public double smallest() { return Math.scalb(1.0, -maxScale()); }

    @Override
    public boolean signed() { return true; }

    @Override
    public boolean hasZero() { return true; }

    /** maxpos is the only posit of its binade: the one below it is at most maxpos / 2. */
    @Override
    public int largestBinadeFractionBits() { return 0; }

    /** maxpos plus half its distance to the posit below it: a posit has no step above maxpos. */
    @Override
    public double midpointAboveLargest() { return largest() + (largest() - value(largestPattern() - 1)) / 2; }

    /** At most 24 significant bits (bits - 2 - es) and scales within float32's normal range, +-126. */
    @Override
    public boolean float32HoldsEvery() { return bits - 2 - es <= 24 && maxScale() <= 126; }

    /**
     * The value of the positive pattern {@code pattern} (0 .. {@link #largestPattern()}): after the sign bit, a
     * regime run of r equal bits (k = r - 1 for ones, -r for zeros) and its opposite bit, then es exponent bits
     * (those the pattern cuts off are 0), then the fraction; 2^(k 2^es + e) (1 + fraction). Exact in a double.
     */
    public double value(long pattern) {
        if (pattern < 0 || pattern > largestPattern()) throw new IllegalArgumentException("pattern " + pattern + " of posit" + bits);
        if (pattern == 0) return 0;
        int body = bits - 1;
        boolean ones = (pattern >>> (body - 1) & 1) == 1;
        int run = 1;
        while (run < body && (pattern >>> (body - 1 - run) & 1) == (ones ? 1 : 0)) run++;
        int k = ones ? run - 1 : -run;
        int rest = Math.max(body - run - 1, 0);
        int exponentBits = Math.min(es, rest), fractionBits = rest - exponentBits;
        long exponent = (pattern >>> fractionBits & ((1L << exponentBits) - 1)) << (es - exponentBits);
        long significand = 1L << fractionBits | (pattern & ((1L << fractionBits) - 1));
        return Math.scalb((double) significand, (k << es) + (int) exponent - fractionBits);
    }

    /**
     * The value of the (bits + 1)-bit posit between pattern {@code pattern} and the next one up: the bit string of
     * {@code pattern} followed by a 1, where rounding to nearest turns.
     */
    public double midpointAbove(long pattern) { return new PositGrid(bits + 1, es).value(2 * pattern + 1); }

    @Override
    public double round(BigDecimal numerator, BigDecimal denominator, ValueGrid.Direction direction) {
        double end = atAnEnd(numerator, denominator);
        if (!Double.isNaN(end)) return end;
        Cut cut = truncated(numerator, denominator);
        long below = cut.pattern() >>> 1;
        boolean firstCutBit = (cut.pattern() & 1) == 1, inexact = firstCutBit || !cut.exact();
        boolean belowIsOdd = (below & 1) == 1;
        boolean stepUp = switch (direction) {
            case NEAREST_EVEN -> firstCutBit && (!cut.exact() || belowIsOdd);
            case NEAREST_AWAY -> firstCutBit;
            case UP -> inexact;
            case TOWARD_ZERO -> false;
            case ODD -> inexact && !belowIsOdd;
        };
        return value(below + (stepUp ? 1 : 0));
    }

    /**
     * The posit for q = numerator / denominator rounded stochastically between its neighbours lo < q < hi by its
     * distance from them, in the posit's own spacing: c = floor((q - lo) / (hi - lo) 2^bits), one pattern up when
     * c + random >= 2^bits, so that E[result] = q to within 2^-bits (hi - lo) everywhere between minpos and maxpos.
     * Not by the bit string's cut bits, which near minpos and maxpos are exponent bits (posit8 es 2 has no posit
     * between 2^20 and 2^24, and the cut bits of 2^22 read 1/2 where its distance reads 1/5). As in every mode, 0
     * gives 0, a nonzero q up to minpos gives minpos (never 0) and q from maxpos up maxpos (never NaR).
     */
    @Override
    public double roundStochastically(BigDecimal numerator, BigDecimal denominator, int random, int bits) {
        double end = atAnEnd(numerator, denominator);
        if (!Double.isNaN(end)) return end;
        long below = truncated(numerator, denominator).pattern() >>> 1;
        BigDecimal low = new BigDecimal(value(below)), spacing = new BigDecimal(value(below + 1)).subtract(low);
        // c = floor((q - low) 2^bits / spacing), exactly: numerator and spacing both times the denominator.
        long c = numerator.subtract(low.multiply(denominator)).multiply(powerOfTwo(bits)).divideToIntegralValue(spacing.multiply(denominator))
            .longValueExact();
        return value(below + (c + random >= 1L << bits ? 1 : 0));
    }

    /**
     * What every mode gives q = numerator / denominator at the ends: 0 for 0, minpos for 0 < q <= minpos, maxpos for
     * q >= maxpos; NaN for q strictly between minpos and maxpos, which the modes round each their own way.
     */
    private double atAnEnd(BigDecimal numerator, BigDecimal denominator) {
        if (numerator.signum() == 0) return 0;
        if (numerator.compareTo(denominator.multiply(new BigDecimal(largest()))) >= 0) return largest();
        if (numerator.compareTo(denominator.multiply(new BigDecimal(smallest()))) <= 0) return smallest();
        return Double.NaN;
    }

    /** The first bits + 1 bits of a bit string (after the sign) and whether the bits after them are all 0. */
    private record Cut(long pattern, boolean exact) {}

    /**
     * The bit string of x = numerator / denominator, minpos < x < maxpos, cut after bits + 1 bits (its sign bit
     * included): x = 2^s (1 + f), s = k 2^es + e with 0 <= e < 2^es; the regime of k (k + 1 ones and a 0 for
     * k >= 0, -k zeros and a 1 below), e in es bits, then f's bits, as many as are left (its floor at that
     * many bits, and whether it was exact); where the regime leaves fewer than es bits, e's last bits are cut.
     */
    private Cut truncated(BigDecimal numerator, BigDecimal denominator) {
        int scale = ValueGrid.floorLog2(numerator, denominator);
        int k = Math.floorDiv(scale, 1 << es), e = scale - (k << es);
        int regimeBits = k >= 0 ? k + 2 : 1 - k;
        long regime = k >= 0 ? ((1L << (k + 1)) - 1) << 1 : 1;
        int kept = bits, fractionBits = Math.max(kept - regimeBits - es, 0);
        // (1 + f) 2^fractionBits = x 2^(fractionBits - scale): its floor and remainder, exactly.
        int shift = fractionBits - scale;
        BigDecimal scaledNumerator = shift >= 0 ? numerator.multiply(powerOfTwo(shift)) : numerator;
        BigDecimal scaledDenominator = shift >= 0 ? denominator : denominator.multiply(powerOfTwo(-shift));
        BigDecimal[] quotientAndRemainder = scaledNumerator.divideAndRemainder(scaledDenominator);
        long fraction = quotientAndRemainder[0].toBigIntegerExact().longValueExact() - (1L << fractionBits);
        BigInteger string = BigInteger.valueOf((regime << es | e)).shiftLeft(fractionBits).or(BigInteger.valueOf(fraction));
        int cut = regimeBits + es + fractionBits - kept;
        boolean cutBitsZero = cut <= 0 || string.getLowestSetBit() >= cut || string.signum() == 0;
        return new Cut(string.shiftRight(Math.max(cut, 0)).longValueExact(), quotientAndRemainder[1].signum() == 0 && cutBitsZero);
    }

    private static BigDecimal powerOfTwo(int exponent) { return new BigDecimal(BigInteger.ONE.shiftLeft(exponent)); }
}
