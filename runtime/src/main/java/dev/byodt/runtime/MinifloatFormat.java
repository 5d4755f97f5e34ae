package dev.byodt.runtime;

/**
 * A small binary float given by its fields: exponent and fraction bits, which patterns are special and whether
 * it has a sign bit. It is the one description of these formats in byodt: minifloat.c's parameters for the
 * custom datatypes (fp8e4m3, the FNUZ float8s, fp4e2m1, e8m0, ...), and the element types ONNX stores in them
 * (float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float4e2m1, float8e8m0), whose values
 * {@link #value} gives from the fields.
 */
public record MinifloatFormat(int exponentBits, int fractionBits, Specials specials, boolean unsigned) {
    /** Which patterns are not ordinary numbers; minifloat.c's header describes each style. */
    public enum Specials {
        /** IEEE 754: the all-ones exponent holds the infinities and NaNs. */
        IEEE,
        /** Finite, one NaN (OCP FP8 E4M3): only the all-ones magnitude is NaN; saturating. */
        FN,
        /** Finite, NaN at -0 (ONNX FLOAT8E4M3FNUZ, FLOAT8E5M2FNUZ): bias 2^(E-1), no negative zero; saturating. */
        FNUZ,
        /** Every pattern a number (OCP MX FP6, FP4); saturating, and a NaN becomes +0. */
        NONE
    }

    public static MinifloatFormat ieee(int exponentBits, int fractionBits) {
        return new MinifloatFormat(exponentBits, fractionBits, Specials.IEEE, false);
    }

    public int bits() { return (unsigned ? 0 : 1) + exponentBits + fractionBits; }

    public int bias() { return (1 << (exponentBits - 1)) - (specials == Specials.FNUZ ? 0 : 1); }

    /** The binade of the largest finite value: the all-ones exponent, less one where it holds only specials. */
    public int largestBinade() {
        boolean topBinadeSpecial = specials == Specials.IEEE || (specials == Specials.FN && fractionBits == 0);
        return (1 << exponentBits) - (topBinadeSpecial ? 2 : 1) - bias();
    }

    /** The exponent of the smallest nonzero value: the last bit of a subnormal, or 2^-bias with no fraction bits. */
    public int smallestExponent() { return (fractionBits > 0 ? 1 : 0) - bias() - fractionBits; }

    /** The sign bit of a pattern, 0 for an unsigned format. */
    /** Whether float32 holds every value exactly: at most 23 fraction bits, and exponents within float32's (subnormals included). */
    public boolean exactInFloat32() { return fractionBits <= 23 && largestBinade() <= 127 && smallestExponent() >= -149; }

    public int signBit() { return unsigned ? 0 : 1 << (exponentBits + fractionBits); }

    /**
     * The pattern of the largest finite value. Patterns from 0 to it are the non-negative numbers in increasing
     * order (0 or, without subnormals, the smallest value first), which is what makes rounding a search.
     */
    public int largestFinite() {
        int magnitudes = (1 << (exponentBits + fractionBits)) - 1;
        return switch (specials) {
            case IEEE -> (((1 << exponentBits) - 1) << fractionBits) - 1;
            case FN -> magnitudes - 1;
            case FNUZ, NONE -> magnitudes;
        };
    }

    public boolean isNaN(int pattern) {
        int magnitude = pattern & ~signBit();
        int exponentField = magnitude >>> fractionBits;
        return switch (specials) {
            case IEEE -> exponentField == (1 << exponentBits) - 1 && (magnitude & ((1 << fractionBits) - 1)) != 0;
            case FN -> magnitude == largestFinite() + 1;
            case FNUZ -> pattern == signBit();
            case NONE -> false;
        };
    }

    /**
     * The value of a pattern, from its fields: exact (every value of these formats is a double), NaN and the
     * infinities where the format has them.
     */
    public double value(int pattern) {
        if (isNaN(pattern)) return Double.NaN;
        boolean negative = (pattern & signBit()) != 0;
        int magnitude = pattern & ~signBit();
        double v;
        if (magnitude > largestFinite()) {
            v = Double.POSITIVE_INFINITY;
        } else {
            int exponentField = magnitude >>> fractionBits;
            int fraction = magnitude & ((1 << fractionBits) - 1);
            boolean subnormal = exponentField == 0 && fractionBits > 0;
            long significand = subnormal ? fraction : fraction + (1L << fractionBits);
            v = Math.scalb((double) significand, (subnormal ? 1 : exponentField) - bias() - fractionBits);
        }
        return negative ? -v : v;
    }
}
