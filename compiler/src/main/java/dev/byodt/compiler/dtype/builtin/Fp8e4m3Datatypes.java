package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.runtime.MinifloatFormat;

/**
 * OCP FP8 E4M3: no infinity, one NaN pattern per sign, saturating at +-448. It is minifloat.c's e4m3 in the FN
 * style, which gives the all-ones exponent to finite values.
 */
public final class Fp8e4m3Datatypes implements DatatypePlugin {
    @Override
    public void registerWith(DatatypeRegistry registry) {
        MinifloatFormat e4m3 = new MinifloatFormat(4, 3, MinifloatFormat.Specials.FN, false);
        registry.register(MinifloatDatatypes.minifloat("fp8e4m3", 144, i -> e4m3, i -> "fp8e4m3",
                MinifloatLibrary.roundingModes(e4m3))
            .summary("OCP FP8 E4M3 (no infinity, saturating at 448)")
            .widths(8)
            .build());
    }
}
