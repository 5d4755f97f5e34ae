package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.ValueGrid;
import dev.byodt.runtime.MinifloatFormat;

import java.util.ArrayList;
import java.util.List;

/**
 * What the datatypes built on minifloat.c need of a {@link MinifloatFormat}: the library's -D parameters, its
 * rounding modes, the
 * width of its exact accumulator, which the registry gives code generation, and the grid of values block
 * quantization rounds to.
 */
final class MinifloatLibrary {
    private MinifloatLibrary() {}

    /** The library's -D parameters for the format, then those of its --rounding mode ({@code roundingDefines}). */
    static List<String> defines(MinifloatFormat format, List<String> roundingDefines) {
        List<String> defines = new ArrayList<>(List.of("MF_EXP_BITS=" + format.exponentBits(), "MF_FRAC_BITS=" + format.fractionBits()));
        defines.addAll(roundingDefines);
        if (format.specials() != MinifloatFormat.Specials.IEEE) defines.add("MF_SPECIALS=MF_SPECIALS_" + format.specials());
        if (format.unsigned()) defines.add("MF_UNSIGNED=1");
        return defines;
    }

    /**
     * The --rounding modes of a format, nearest even first: every mode, but to odd where there are no fraction
     * bits (E8M0, whose every value has the odd significand 1, so to odd would be toward zero by another name).
     * Every format registered has E <= 8, whose products double holds exactly, as minifloat.c's other modes need.
     */
    static List<RoundingMode> roundingModes(MinifloatFormat format) {
        List<RoundingMode> modes = new ArrayList<>(List.of(RoundingMode.values()));
        if (format.fractionBits() == 0) modes.remove(RoundingMode.ODD);
        return modes;
    }

    /**
     * minifloat.c's MF_VIA_FLOAT: the formats whose add and mul are from_float(to_float(a) op to_float(b)), the
     * float32 result rounded once, which the library proves correctly rounded (p = M + 1 with 2p + 2 <= 24, and
     * float32's exponent range where it matters); to_f32 differs from to_float only in giving every NaN as the
     * one quiet NaN, which rounds to the same NaN pattern. IEEE float16 is left out: its add and mul are F16C
     * conversions around float32's, as fast as sums in float32 registers, and its 16-bit sums move half the bytes
     * (bench-dtypes measured its matrix product and convolution slower with float32 sums). Only to nearest even:
     * in the other --rounding modes a float32 sum rounded again is not the sum rounded once, and minifloat.c
     * computes them otherwise.
     */
    static boolean arithmeticInFloat32(MinifloatFormat format, RoundingMode rounding) {
        return rounding == RoundingMode.NEAREST_EVEN && arithmeticInFloat32(format);
    }

    private static boolean arithmeticInFloat32(MinifloatFormat format) {
        int e = format.exponentBits(), m = format.fractionBits();
        boolean float16 = e == 5 && m == 10 && format.specials() == MinifloatFormat.Specials.IEEE && !format.unsigned();
        return !float16 && ((e <= 7 && m >= 1 && m <= 10)
            || (e == 8 && m >= 1 && m <= 7 && format.specials() == MinifloatFormat.Specials.IEEE && !format.unsigned()));
    }

    /**
     * The width of minifloat.c's exact accumulator (its MF_ACC_BITS): a fixed-point integer whose unit is the
     * square of the smallest nonzero value, with room for the largest product, 2^24 of them, a sign and three
     * flag bits, rounded up to 64, 128, ..., 1024 bits. A test checks it against the library's own macro.
     */
    static int exactAccumulatorBits(MinifloatFormat format) {
        int needed = -2 * format.smallestExponent() + 2 * format.largestBinade() + 2 + 1 + 3 + 24;
        int bits = 64;
        while (bits < needed) bits *= 2;
        return bits;
    }

    /**
     * The finite values: M fraction bits from the smallest normal binade 1 - bias up (with M = 0, E8M0, the
     * smallest pattern is 2^-bias and there is no zero); the largest is the top binade full, or one step short
     * of it where the all-ones pattern is the NaN (FN with fraction bits: fp8e4m3's 448, not 480).
     */
    static ValueGrid valueGrid(MinifloatFormat format) {
        int fractionBits = format.fractionBits();
        boolean topPatternNaN = format.specials() == MinifloatFormat.Specials.FN && fractionBits > 0;
        double topSignificand = 2 - Math.scalb(1.0, (topPatternNaN ? 1 : 0) - fractionBits);
        boolean hasZero = fractionBits > 0;
        return new ValueGrid(fractionBits, hasZero ? 1 - format.bias() : -format.bias(),
            Math.scalb(topSignificand, format.largestBinade()), hasZero, !format.unsigned());
    }
}
