package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.runtime.MinifloatFormat;

import static dev.byodt.runtime.MinifloatFormat.Specials.FN;
import static dev.byodt.runtime.MinifloatFormat.Specials.FNUZ;
import static dev.byodt.runtime.MinifloatFormat.Specials.IEEE;
import static dev.byodt.runtime.MinifloatFormat.Specials.NONE;

/**
 * The small floats of block-scaled and 8-bit formats as scalar datatypes, each minifloat.c in one format: the
 * OCP Microscaling (MX) v1.0 elements FP6 E3M2, FP6 E2M3, FP4 E2M1 and scale E8M0, NVFP4's scale (an unsigned
 * E4M3), the ONNX FLOAT8E4M3FNUZ/FLOAT8E5M2FNUZ formats and ml_dtypes' float8_e3m4.
 */
public final class ElementFormatDatatypes implements DatatypePlugin {
    @Override
    public void registerWith(DatatypeRegistry registry) {
        register(registry, "fp6e3m2", 145, new MinifloatFormat(3, 2, NONE, false), 6,
            "OCP MX FP6 E3M2 (no infinity or NaN, saturating at 28)");
        register(registry, "fp6e2m3", 146, new MinifloatFormat(2, 3, NONE, false), 6,
            "OCP MX FP6 E2M3 (no infinity or NaN, saturating at 7.5)");
        register(registry, "fp4e2m1", 147, new MinifloatFormat(2, 1, NONE, false), 4,
            "OCP MX FP4 E2M1 (no infinity or NaN, saturating at 6)");
        register(registry, "e8m0", 148, new MinifloatFormat(8, 0, FN, true), 8,
            "OCP MX scale E8M0 (powers of two 2^-127..2^127, 0xFF NaN, no zero or sign)");
        register(registry, "ue4m3", 149, new MinifloatFormat(4, 3, FN, true), 8,
            "NVFP4's scale: unsigned E4M3 in a byte (0..448, 0x7F NaN)");
        register(registry, "fp8e4m3fnuz", 151, new MinifloatFormat(4, 3, FNUZ, false), 8,
            "ONNX FLOAT8E4M3FNUZ (bias 8, 0x80 NaN, no infinity or -0, saturating at 240)");
        register(registry, "fp8e5m2fnuz", 152, new MinifloatFormat(5, 2, FNUZ, false), 8,
            "ONNX FLOAT8E5M2FNUZ (bias 16, 0x80 NaN, no infinity or -0, saturating at 57344)");
        register(registry, "fp8e3m4", 153, new MinifloatFormat(3, 4, IEEE, false), 8,
            "ml_dtypes float8_e3m4 (IEEE-like, inf and NaN, largest 15.5)");
    }

    private static void register(DatatypeRegistry registry, String name, int code, MinifloatFormat format, int width, String summary) {
        registry.register(MinifloatDatatypes.minifloat(name, code, i -> format, i -> name, MinifloatLibrary.roundingModes(format))
            .summary(summary).widths(width).build());
    }
}
