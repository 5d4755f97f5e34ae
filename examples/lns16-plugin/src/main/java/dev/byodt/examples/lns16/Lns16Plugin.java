package dev.byodt.examples.lns16;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.LowerFunc;

import static dev.byodt.compiler.dtype.DatatypeOp.*;

/**
 * lns16 (examples/lns16/lns16.c, packed in this jar as lns16/lns16.c) as a Java plug-in: the same as lns16.yaml.
 * lns16.c defines every operation on values ({@link DatatypeOp#valueOps()}), so this registers them all.
 */
public final class Lns16Plugin implements DatatypePlugin {
    @Override
    public void registerWith(DatatypeRegistry registry) {
        registry.register(DatatypeDefinition.register("lns", 160)
            .summary("16-bit logarithmic numbers (sign, 5.10 fixed-point log2 of the magnitude)")
            .widths(16)
            .library(LibrarySource.resource(Lns16Plugin.class.getClassLoader(), "lns16/lns16.c"))
            .prefix(instance -> "lns16")
            .registerLibraryOps(valueOps())
            .registerLibraryOps(FROM_F32, TO_F32, FROM_I32, TO_I32, FROM_F64)
            .registerMinFunc(LowerFunc.libraryFunction("lowest"))
            .accumulation(AccumulationMode.FLOAT32)
            .build());
    }
}
