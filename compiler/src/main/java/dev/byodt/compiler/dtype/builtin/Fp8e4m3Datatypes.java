package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.LibrarySource;

/** OCP FP8 E4M3: no infinity, one NaN pattern per sign, saturating at +-448 (fp8e4m3.c, no parameters). */
public final class Fp8e4m3Datatypes implements DatatypePlugin {
    static final LibrarySource LIBRARY = LibrarySource.resource("dev/byodt/datatypes/fp8e4m3/fp8e4m3.c");

    @Override
    public void registerWith(DatatypeRegistry registry) {
        registry.register(DatatypeDefinition.register("fp8e4m3", 144)
            .summary("OCP FP8 E4M3 (no infinity, saturating at 448)")
            .widths(8)
            .library(LIBRARY)
            .prefix(i -> "fp8e4m3")
            .registerLibraryOps(BuiltInOps.ARITHMETIC)
            .registerLibraryOps(BuiltInOps.COMPARISONS)
            .registerLibraryOps(BuiltInOps.CONVERSIONS)
            .accumulation(AccumulationMode.FLOAT32)
            .build());
    }
}
