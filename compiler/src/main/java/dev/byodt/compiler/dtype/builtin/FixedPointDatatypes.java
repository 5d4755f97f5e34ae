package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BuiltInLibraries;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.LoweringTarget;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.p.FixedPointP;

import java.util.List;

/**
 * Two's-complement fixed point fxpN_P (N in 8, 16, 32 bits, P fractional bits), from fixed.c
 * (-DFXP_N -DFXP_P -DFXP_WRAP -DFXP_TRUNCATE). Saturating and rounding to nearest by default;
 * --overflow wrap and --rounding truncate choose the TVM fork's behaviour. Comparisons, minimum and maximum
 * are the integers' own, inline. On a target with the RISC-V P extension, fxp16_P uses P instructions (FixedPointP).
 */
public final class FixedPointDatatypes implements DatatypePlugin {
    static final LibrarySource LIBRARY = BuiltInLibraries.of("dev/byodt/datatypes/fixed/fixed.c");

    @Override
    public void registerWith(DatatypeRegistry registry) {
        registry.register(DatatypeDefinition.register("fxp_{P:0..31}", 150)
            .summary("fixed point fxpN_P: N-bit two's complement, P fractional bits")
            .widths(8, 16, 32)
            .check(i -> i.parameter() < i.bits() ? null : "P must be below N")
            .option("overflow", "saturate", "wrap")
            .option("rounding", "nearest", "truncate")
            .library(LIBRARY, i -> List.of("FXP_N=" + i.bits(), "FXP_P=" + i.parameter(),
                "FXP_WRAP=" + (i.option("overflow").equals("wrap") ? 1 : 0),
                "FXP_TRUNCATE=" + (i.option("rounding").equals("truncate") ? 1 : 0)))
            .prefix(i -> "fxp" + i.bits() + "_" + i.parameter())
            .registerLibraryOps(BuiltInOps.ARITHMETIC)
            .registerLibraryOps(BuiltInOps.CONVERSIONS)
            .registerLibraryOps(BuiltInOps.EXACT_ACCUMULATION)
            .registerOp(DatatypeOp.MIN, s -> Exprs.min(s.arg(0), s.arg(1)))
            .registerOp(DatatypeOp.MAX, s -> Exprs.max(s.arg(0), s.arg(1)))
            .registerOp(DatatypeOp.LT, s -> Exprs.lt(s.arg(0), s.arg(1)))
            .registerOp(DatatypeOp.LE, s -> Exprs.le(s.arg(0), s.arg(1)))
            .registerOp(DatatypeOp.GT, s -> Exprs.gt(s.arg(0), s.arg(1)))
            .registerOp(DatatypeOp.GE, s -> Exprs.ge(s.arg(0), s.arg(1)))
            .registerOp(DatatypeOp.EQ, s -> Exprs.eq(s.arg(0), s.arg(1)))
            .registerOp(DatatypeOp.NE, s -> Exprs.ne(s.arg(0), s.arg(1)))
            .registerOp(DatatypeOp.ADD, LoweringTarget.P_EXTENSION, FixedPointP.add())
            .registerOp(DatatypeOp.SUB, LoweringTarget.P_EXTENSION, FixedPointP.sub())
            .registerOp(DatatypeOp.MUL, LoweringTarget.P_EXTENSION, FixedPointP.mul())
            .registerOp(DatatypeOp.MIN, LoweringTarget.P_EXTENSION, FixedPointP.min())
            .registerOp(DatatypeOp.MAX, LoweringTarget.P_EXTENSION, FixedPointP.max())
            .registerOp(DatatypeOp.ACC_MAC, LoweringTarget.P_EXTENSION, FixedPointP.accumulateProduct())
            .accumulation(AccumulationMode.FLOAT32, AccumulationMode.EXACT)
            // At least 2N + 16 bits, so that 2^16 products of 2N bits sum without overflow (docs/datatypes.md, "Fixed point").
            .exactAccumulator(i -> i.bits() <= 16 ? 64 : 128)
            .build());
    }
}
