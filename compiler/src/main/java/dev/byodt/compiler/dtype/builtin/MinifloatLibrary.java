package dev.byodt.compiler.dtype.builtin;

import dev.byodt.runtime.MinifloatFormat;

import java.util.ArrayList;
import java.util.List;

/**
 * What minifloat.c needs to know of a {@link MinifloatFormat}: its -D parameters, and the width of its exact
 * accumulator, which the registry gives code generation.
 */
final class MinifloatLibrary {
    private MinifloatLibrary() {}

    static List<String> defines(MinifloatFormat format) {
        List<String> defines = new ArrayList<>(List.of("MF_EXP_BITS=" + format.exponentBits(), "MF_FRAC_BITS=" + format.fractionBits()));
        if (format.specials() != MinifloatFormat.Specials.IEEE) defines.add("MF_SPECIALS=MF_SPECIALS_" + format.specials());
        if (format.unsigned()) defines.add("MF_UNSIGNED=1");
        return defines;
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
}
