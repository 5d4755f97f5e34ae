package dev.byodt.examples.int6;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeName;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.LowerFunc;
import dev.byodt.compiler.dtype.ScaleRule;
import dev.byodt.compiler.dtype.ValueGrid;

import java.util.stream.Stream;

/**
 * int6 (int6.c, packed in the jar as int6/int6.c) and the block datatype mxint6 over it, as a Java plug-in: the
 * same as int6.yaml. The grid tells block quantization int6's values (k/16, |k| <= 31: fixed point of 6 bits with 4
 * fraction bits); registerBlock then declares 32 int6 elements under an E8M0 scale by the OCP MX floor rule.
 */
public final class Int6Plugin implements DatatypePlugin {
    @Override
    public void registerWith(DatatypeRegistry registry) {
        registry.register(DatatypeDefinition.register("int6", 161)
            .summary("6-bit symmetric fixed point, k/16 for |k| <= 31 (0x20 is NaN)")
            .widths(6)
            .library(LibrarySource.resource(Int6Plugin.class.getClassLoader(), "int6/int6.c"))
            .prefix(instance -> "int6")
            .registerLibraryOps(Stream.of("add", "sub", "mul", "div", "neg", "abs", "min", "max", "lt", "le", "gt", "ge", "eq", "ne",
                "from_f32", "to_f32", "from_i32", "to_i32", "from_f64").map(DatatypeOp::parse).toArray(DatatypeOp[]::new))
            .registerMinFunc(LowerFunc.libraryFunction("lowest"))
            .accumulation(AccumulationMode.FLOAT32)
            .valueGrid(instance -> ValueGrid.fixedPoint(6, 4))
            .build());
        registry.registerBlock("mxint6", new BlockDatatypeName(DatatypeName.parse("custom[int6]6"), 32, DatatypeName.parse("custom[e8m0]8"),
            ScaleRule.FLOOR, false));
    }
}
