package dev.byodt.compiler.p;

import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.dtype.LowerFunc;
import dev.byodt.compiler.dtype.LoweringSite;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;
import java.util.function.Predicate;

/**
 * The fixed-point lowerings on a target with the RISC-V P extension (LoweringTarget.P_EXTENSION): calls of
 * the P library ({@link PFunctions}, fixed_p.c) where a P instruction computes exactly what fixed.c does,
 * else the same lowering as without P. fxp16_P has 16-bit lanes to use, fxp8_P 8-bit ones:
 * <ul>
 *   <li>add, sub: KADD16/KSUB16, KADD8/KSUB8 (saturating), ADD16/SUB16, ADD8/SUB8 with --overflow wrap</li>
 *   <li>min, max (so ReLU, Clip, max-pooling): SMIN16/SMAX16, SMIN8/SMAX8</li>
 *   <li>mul: KHM16 for fxp16_15 with --rounding truncate (floor) and saturation, the only case it matches; else
 *       exact products rounded and fitted as fixed.c does, fxp16_P's by SMBB16/SMTT16 in 32-bit lanes, fxp8_P's by
 *       KHM16 in 16-bit lanes (byodt_pBITS_mul_MODE, fixed_p.c), which PackedLanes packs like the other lane operations</li>
 *   <li>exact accumulation (--accumulate exact, Conv/Gemm/MatMul dot products): SMALDA into the 64-bit accumulator;
 *       for fxp8_P, SMAQA once GroupedProducts has grouped the products by four or eight</li>
 * </ul>
 */
public final class FixedPointP {
    private FixedPointP() {}

    /** fxp16_P and fxp8_P: P has 16- and 8-bit lanes, byodt_p16_OP and byodt_p8_OP in fixed_p.c. */
    private static final Predicate<LoweringSite> LANE_BITS = s -> s.instance().bits() == 16 || s.instance().bits() == 8;

    private static boolean wraps(LoweringSite s) { return s.instance().option("overflow").equals("wrap"); }

    /** A call of the P library's {@code operation} for the site's lane width (byodt_p16_max, byodt_p8_max) on its operands. */
    private static Expr lane(LoweringSite s, String operation) { return PFunctions.lane(s.instance().bits(), operation).call(s.args()); }

    public static LowerFunc add() {
        return or(LANE_BITS, s -> lane(s, wraps(s) ? "add_wrap" : "add_saturate"), LowerFunc.libraryFunction("add"));
    }

    public static LowerFunc sub() {
        return or(LANE_BITS, s -> lane(s, wraps(s) ? "sub_wrap" : "sub_saturate"), LowerFunc.libraryFunction("sub"));
    }

    public static LowerFunc min() { return or(LANE_BITS, s -> lane(s, "min"), s -> Exprs.min(s.arg(0), s.arg(1))); }

    public static LowerFunc max() { return or(LANE_BITS, s -> lane(s, "max"), s -> Exprs.max(s.arg(0), s.arg(1))); }

    public static LowerFunc mul() {
        Predicate<LoweringSite> q15 = s -> s.instance().bits() == 16 && s.instance().parameter() == 15 && !wraps(s)
            && s.instance().option("rounding").equals("truncate");
        return or(q15, s -> PFunctions.Q15_MUL.call(s.args()), or(LANE_BITS, FixedPointP::product, LowerFunc.libraryFunction("mul")));
    }

    /** fxp16_P's or fxp8_P's product in the site's rounding and overflow, P passed along. */
    private static Expr product(LoweringSite s) {
        return PFunctions.product(s.instance().bits(), 1, mode(s.instance())).call(s.arg(0), s.arg(1), new Expr.IntConst(ScalarType.I32, s.instance().parameter()));
    }

    /** The --rounding modes the P kernels have (PExtension checks the datatypes against them). */
    public static final List<String> ROUNDINGS = List.of("nearest", "truncate");

    /** The rounding and overflow of a datatype as the P library's functions name them ({@link PFunctions#PRODUCT_MODES}). */
    static String mode(DatatypeInstance instance) {
        return (instance.option("rounding").equals("truncate") ? "truncate" : "nearest") + (instance.option("overflow").equals("wrap") ? "_wrap" : "_saturate");
    }

    public static LowerFunc accumulateProduct() {
        return or(LANE_BITS, s -> PFunctions.accumulate(s.instance().bits(), 1).call(s.args()), LowerFunc.libraryFunction("acc_mac"));
    }

    private static LowerFunc or(Predicate<LoweringSite> applies, LowerFunc withP, LowerFunc without) {
        return s -> applies.test(s) ? withP.lower(s) : without.lower(s);
    }
}
