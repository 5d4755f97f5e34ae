package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.ValueGrid;

import java.util.ArrayList;
import java.util.List;

/**
 * One of minifloat.c's formats: its exponent and fraction bits, which patterns are special (the library's
 * MF_SPECIALS) and whether it has a sign bit (MF_UNSIGNED). The registry needs it for the library's -D
 * parameters and for the width of the library's exact accumulator.
 */
record MinifloatFormat(int exponentBits, int fractionBits, Specials specials, boolean unsigned) {
    /** Which patterns are not ordinary numbers; minifloat.c's header describes each style. */
    enum Specials {
        /** IEEE 754: the all-ones exponent holds the infinities and NaNs. */
        IEEE,
        /** Finite, one NaN (OCP FP8 E4M3): only the all-ones magnitude is NaN; saturating. */
        FN,
        /** Finite, NaN at -0 (ONNX FLOAT8E4M3FNUZ, FLOAT8E5M2FNUZ): bias 2^(E-1), no negative zero; saturating. */
        FNUZ,
        /** Every pattern a number (OCP MX FP6, FP4); saturating, and a NaN becomes +0. */
        NONE
    }

    static MinifloatFormat ieee(int exponentBits, int fractionBits) {
        return new MinifloatFormat(exponentBits, fractionBits, Specials.IEEE, false);
    }

    int bits() { return (unsigned ? 0 : 1) + exponentBits + fractionBits; }

    int bias() { return (1 << (exponentBits - 1)) - (specials == Specials.FNUZ ? 0 : 1); }

    /** The binade of the largest finite value: the all-ones exponent, less one where it holds only specials. */
    int largestBinade() {
        boolean topBinadeSpecial = specials == Specials.IEEE || (specials == Specials.FN && fractionBits == 0);
        return (1 << exponentBits) - (topBinadeSpecial ? 2 : 1) - bias();
    }

    /** The exponent of the smallest nonzero value: the last bit of a subnormal, or 2^-bias with no fraction bits. */
    int smallestExponent() { return (fractionBits > 0 ? 1 : 0) - bias() - fractionBits; }

    /** Whether float32 holds every value exactly: at most 23 fraction bits, and exponents within float32's (subnormals included). */
    boolean exactInFloat32() { return fractionBits <= 23 && largestBinade() <= 127 && smallestExponent() >= -149; }
    /**
     * The finite values: M fraction bits from the smallest normal binade 1 - bias up (with M = 0, E8M0, the
     * smallest pattern is 2^-bias and there is no zero); the largest is the top binade full, or one step short
     * of it where the all-ones pattern is the NaN (FN with fraction bits: fp8e4m3's 448, not 480).
     */
    ValueGrid valueGrid() {
        boolean topPatternNaN = specials == Specials.FN && fractionBits > 0;
        double topSignificand = 2 - Math.scalb(1.0, (topPatternNaN ? 1 : 0) - fractionBits);
        boolean hasZero = fractionBits > 0;
        return new ValueGrid(fractionBits, hasZero ? 1 - bias() : -bias(), Math.scalb(topSignificand, largestBinade()), hasZero, !unsigned);
    }

    List<String> defines() {
        List<String> defines = new ArrayList<>(List.of("MF_EXP_BITS=" + exponentBits, "MF_FRAC_BITS=" + fractionBits));
        if (specials != Specials.IEEE) defines.add("MF_SPECIALS=MF_SPECIALS_" + specials);
        if (unsigned) defines.add("MF_UNSIGNED=1");
        return defines;
    }

    /**
     * The width of minifloat.c's exact accumulator (its MF_ACC_BITS): a fixed-point integer whose unit is the
     * square of the smallest nonzero value, with room for the largest product, 2^24 of them, a sign and three
     * flag bits, rounded up to 64, 128, ..., 1024 bits. A test checks it against the library's own macro.
     */
    int exactAccumulatorBits() {
        int needed = -2 * smallestExponent() + 2 * largestBinade() + 2 + 1 + 3 + 24;
        int bits = 64;
        while (bits < needed) bits *= 2;
        return bits;
    }
}
