package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BuiltInLibraries;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.StochasticRounding;
import dev.byodt.runtime.MinifloatFormat;

import java.util.List;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * IEEE-style small floats (round to nearest even or in another --rounding mode, subnormals, infinities, NaN) from one C library,
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
        Function<DatatypeInstance, MinifloatFormat> format =
            i -> MinifloatFormat.ieee(exponentBits.applyAsInt(i), i.bits() - 1 - exponentBits.applyAsInt(i));
        return minifloat(name, code, format, i -> "mf_e" + format.apply(i).exponentBits() + "m" + format.apply(i).fractionBits(),
            List.of(RoundingMode.values()));
    }

    /**
     * A datatype of minifloat.c in the given format: every operation of the library, float32, exact or fused
     * accumulation, and the --rounding modes {@code roundings} (the first the default).
     */
    static DatatypeDefinition.Builder minifloat(String name, int code, Function<DatatypeInstance, MinifloatFormat> format,
                                                Function<DatatypeInstance, String> prefix, List<RoundingMode> roundings) {
        return DatatypeDefinition.register(name, code)
            .option("rounding", RoundingMode.optionNames(roundings))
            .option(StochasticRounding.BITS_OPTION, StochasticRounding.bitsOptionValues())
            .check(StochasticRounding::widthProblem)
            .library(LIBRARY, i -> MinifloatLibrary.defines(format.apply(i), StochasticRounding.defines(i)))
            .prefix(prefix)
            .registerLibraryOps(BuiltInOps.ARITHMETIC)
            .registerLibraryOps(BuiltInOps.COMPARISONS)
            .registerLibraryOps(BuiltInOps.CONVERSIONS)
            .registerLibraryOps(BuiltInOps.EXACT_ACCUMULATION)
            // minifloat.c defines rounded_f32 with MF_VIA_FLOAT, for every instance arithmeticInFloat32 accepts, the
            // only ones whose code calls it (RoundedFloat32Accumulator).
            .registerLibraryOps(DatatypeOp.ROUNDED_F32)
            .accumulation(AccumulationMode.FLOAT32, AccumulationMode.EXACT)
            .exactAccumulator(i -> MinifloatLibrary.exactAccumulatorBits(format.apply(i)))
            .fusedAccumulation(i -> format.apply(i).exactInFloat32())
            // acc_round rounds a double holding the exact sum (its top 53 bits and a sticky bit) by from_f64's from_double.
            .exactSumsInDouble(i -> format.apply(i).exactInFloat32() ? OptionalInt.of(format.apply(i).fractionBits() + 1) : OptionalInt.empty())
            .arithmeticInFloat32(i -> MinifloatLibrary.arithmeticInFloat32(format.apply(i), RoundingMode.of(i.option("rounding"))))
            .valueGrid(i -> MinifloatLibrary.valueGrid(format.apply(i)));
    }
}
