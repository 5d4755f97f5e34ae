package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;

import java.util.List;

/**
 * OCP FP8 E4M3: no infinity, one NaN pattern per sign, saturating at +-448. It is minifloat.c's e4m3 with
 * MF_OCP_FINITE, which gives the all-ones exponent to finite values.
 */
public final class Fp8e4m3Datatypes implements DatatypePlugin {
    @Override
    public void registerWith(DatatypeRegistry registry) {
        registry.register(DatatypeDefinition.register("fp8e4m3", 144)
            .summary("OCP FP8 E4M3 (no infinity, saturating at 448)")
            .widths(8)
            .library(MinifloatDatatypes.LIBRARY, i -> List.of("MF_EXP_BITS=4", "MF_FRAC_BITS=3", "MF_OCP_FINITE=1"))
            .prefix(i -> "fp8e4m3")
            .registerLibraryOps(BuiltInOps.ARITHMETIC)
            .registerLibraryOps(BuiltInOps.COMPARISONS)
            .registerLibraryOps(BuiltInOps.CONVERSIONS)
            .registerLibraryOps(BuiltInOps.EXACT_ACCUMULATION)
            .accumulation(AccumulationMode.FLOAT32, AccumulationMode.EXACT)
            .exactAccumulator(i -> MinifloatDatatypes.exactAccumulatorBits(4, 3, true))
            .build());
    }
}
