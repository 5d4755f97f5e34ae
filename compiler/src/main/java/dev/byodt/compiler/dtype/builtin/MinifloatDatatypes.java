package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BuiltInLibraries;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.LibrarySource;

import java.util.List;
import java.util.function.ToIntFunction;

/**
 * IEEE-style small floats (round to nearest even, subnormals, infinities, NaN) from one C library,
 * minifloat.c (-DMF_EXP_BITS -DMF_FRAC_BITS): {@code minifloat_eE} at any width with at least one fraction
 * bit, and the common formats by name: {@code float16} (e5m10), {@code bfloat} (e8m7, bfloat16) and
 * {@code fp8e5m2}.
 */
public final class MinifloatDatatypes implements DatatypePlugin {
    static final LibrarySource LIBRARY = BuiltInLibraries.of("dev/byodt/datatypes/minifloat/minifloat.c");

    @Override
    public void registerWith(DatatypeRegistry registry) {
        registry.register(minifloat("minifloat_e{E:2..8}", 140, DatatypeInstance::parameter)
            .summary("IEEE-style float with E exponent bits and BITS-1-E fraction bits")
            .widthRange(4, 32)
            .check(i -> i.bits() - 1 - i.parameter() >= 1 ? null : "needs at least one fraction bit: BITS > E + 1")
            .build());
        registry.register(minifloat("float16", 141, i -> 5).summary("IEEE binary16 (e5m10)").widths(16).build());
        registry.register(minifloat("bfloat", 142, i -> 8).summary("bfloat16 (e8m7)").widths(16).build());
        registry.register(minifloat("fp8e5m2", 143, i -> 5).summary("OCP FP8 E5M2 (IEEE-like, inf and NaN)").widths(8).build());
    }

    private static DatatypeDefinition.Builder minifloat(String name, int code, ToIntFunction<DatatypeInstance> exponentBits) {
        return DatatypeDefinition.register(name, code)
            .library(LIBRARY, i -> List.of("MF_EXP_BITS=" + exponentBits.applyAsInt(i), "MF_FRAC_BITS=" + fractionBits(i, exponentBits)))
            .prefix(i -> "mf_e" + exponentBits.applyAsInt(i) + "m" + fractionBits(i, exponentBits))
            .registerLibraryOps(BuiltInOps.ARITHMETIC)
            .registerLibraryOps(BuiltInOps.COMPARISONS)
            .registerLibraryOps(BuiltInOps.CONVERSIONS)
            .registerLibraryOps(BuiltInOps.EXACT_ACCUMULATION)
            .accumulation(AccumulationMode.FLOAT32, AccumulationMode.EXACT)
            .exactAccumulator(i -> exactAccumulatorBits(exponentBits.applyAsInt(i), fractionBits(i, exponentBits), false));
    }

    /**
     * The width of minifloat.c's exact accumulator (its MF_ACC_BITS): a fixed-point integer whose unit is the
     * square of the smallest subnormal, with room for the largest product, 2^24 of them, a sign and three
     * flag bits, rounded up to 64, 128, ..., 1024 bits. A test checks it against the library's own macro.
     */
    static int exactAccumulatorBits(int exponentBits, int fractionBits, boolean ocpFinite) {
        int bias = (1 << (exponentBits - 1)) - 1;
        int largestBinade = ocpFinite ? bias + 1 : bias;
        int needed = 2 * (bias - 1 + fractionBits) + 2 * largestBinade + 2 + 1 + 3 + 24;
        int bits = 64;
        while (bits < needed) bits *= 2;
        return bits;
    }

    private static int fractionBits(DatatypeInstance i, ToIntFunction<DatatypeInstance> exponentBits) {
        return i.bits() - 1 - exponentBits.applyAsInt(i);
    }
}
