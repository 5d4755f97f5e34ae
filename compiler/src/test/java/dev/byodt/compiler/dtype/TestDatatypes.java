package dev.byodt.compiler.dtype;

import dev.byodt.compiler.dtype.builtin.Float32Datatypes;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.ScalarOp;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.dtype.DatatypeOp.*;

/**
 * Two small datatypes written for byodt's own tests (C sources in src/test/resources/dev/byodt/testtypes),
 * registered through META-INF/services like any plug-in: {@code custom[t16]16}, float32 truncated to its top
 * 16 bits, without transcendental functions; and {@code custom[q8]16}, Q8.8 fixed point with a 128-bit exact
 * accumulator.
 */
public final class TestDatatypes implements DatatypePlugin {
    public static final String T16_C = "dev/byodt/testtypes/t16.c";
    public static final String Q8_C = "dev/byodt/testtypes/q8.c";

    @Override
    public void registerWith(DatatypeRegistry registry) {
        registry.register(t16().build());
        registry.register(q8().build());
    }

    /** A registry holding float32 alone, the reference datatype every compiled program exchanges its tensors in. */
    public static DatatypeRegistry registryWithFloat32() {
        DatatypeRegistry registry = new DatatypeRegistry();
        new Float32Datatypes().registerWith(registry);
        return registry;
    }

    /** float32 rounded to 16 bits; no sqrt, exp, log, tanh, sigmoid, erf or pow. */
    public static DatatypeDefinition.Builder t16() {
        return DatatypeDefinition.register("t16", 200)
            .summary("test: float32 rounded to its top 16 bits")
            .widths(16)
            .library(LibrarySource.resource(TestDatatypes.class.getClassLoader(), T16_C))
            .prefix(i -> "t16")
            .registerLibraryOps(valueOps(ScalarOp.ADD, ScalarOp.SUB, ScalarOp.MUL, ScalarOp.DIV, ScalarOp.NEG, ScalarOp.ABS, ScalarOp.MIN, ScalarOp.MAX))
            .registerLibraryOps(valueOps(ScalarOp.LT, ScalarOp.LE, ScalarOp.GT, ScalarOp.GE, ScalarOp.EQ, ScalarOp.NE))
            .registerLibraryOps(FROM_F32, TO_F32, FROM_I32, TO_I32, FROM_F64)
            .registerMinFunc(LowerFunc.libraryFunction("lowest"))
            .accumulation(AccumulationMode.FLOAT32);
    }

    /** Q8.8 fixed point; comparisons, minimum and maximum inline on the integers. */
    public static DatatypeDefinition.Builder q8() {
        return DatatypeDefinition.register("q8", 201)
            .summary("test: Q8.8 fixed point with a 128-bit exact accumulator")
            .widths(16)
            .library(LibrarySource.resource(TestDatatypes.class.getClassLoader(), Q8_C))
            .prefix(i -> "q8")
            .registerLibraryOps(valueOps(ScalarOp.ADD, ScalarOp.SUB, ScalarOp.MUL, ScalarOp.DIV, ScalarOp.NEG, ScalarOp.ABS))
            .registerLibraryOps(FROM_F32, TO_F32, FROM_I32, TO_I32, FROM_F64, LOWEST)
            .registerLibraryOps(ACC_MAC, ACC_ADD, ACC_ROUND)
            .registerOp(of(ScalarOp.MIN), s -> Exprs.min(s.arg(0), s.arg(1)))
            .registerOp(of(ScalarOp.MAX), s -> Exprs.max(s.arg(0), s.arg(1)))
            .registerOp(of(ScalarOp.LT), s -> Exprs.lt(s.arg(0), s.arg(1)))
            .registerOp(of(ScalarOp.LE), s -> Exprs.le(s.arg(0), s.arg(1)))
            .registerOp(of(ScalarOp.GT), s -> Exprs.gt(s.arg(0), s.arg(1)))
            .registerOp(of(ScalarOp.GE), s -> Exprs.ge(s.arg(0), s.arg(1)))
            .registerOp(of(ScalarOp.EQ), s -> Exprs.eq(s.arg(0), s.arg(1)))
            .registerOp(of(ScalarOp.NE), s -> Exprs.ne(s.arg(0), s.arg(1)))
            .accumulation(AccumulationMode.FLOAT32, AccumulationMode.EXACT)
            .exactAccumulator(i -> 128);
    }

    private static List<DatatypeOp> valueOps(ScalarOp... ops) { return Arrays.stream(ops).map(DatatypeOp::of).toList(); }
}
