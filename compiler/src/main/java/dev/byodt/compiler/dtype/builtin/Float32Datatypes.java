package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BuiltInLibraries;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.Float32;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.stream.Collectors;

import static dev.byodt.compiler.kernel.Exprs.cast;

/**
 * float32, registered like every other datatype so that it is listed and resolved the same way. Its table
 * says what {@link Float32} computes: machine instructions, float32.c for the transcendental functions.
 * (Compilation uses {@link Float32} itself, which is this table's source.)
 */
public final class Float32Datatypes implements DatatypePlugin {
    @Override
    public void registerWith(DatatypeRegistry registry) {
        Float32 float32 = new Float32();
        DatatypeDefinition.Builder b = DatatypeDefinition.register("float32", Float32.TYPE_CODE)
            .summary("IEEE binary32: machine instructions, and float32.c for "
                + Float32.libraryOps().stream().map(ScalarOp::functionName).collect(Collectors.joining(", ")))
            .widths(32)
            .storage(bits -> ScalarType.F32)
            .library(BuiltInLibraries.of(Float32.LIBRARY))
            .prefix(i -> "float32")
            .accumulation(AccumulationMode.FLOAT32);
        for (DatatypeOp op : DatatypeOp.values()) {
            ScalarOp scalar = op.scalarOp();
            if (scalar == null) continue;
            ScalarType result = op.isComparison() ? ScalarType.BOOL : ScalarType.F32;
            b.registerOp(op, s -> float32.lower(new Expr.Op(scalar, result, s.args()), s.args()));
        }
        b.registerOp(DatatypeOp.FROM_F32, s -> s.arg(0))
            .registerOp(DatatypeOp.TO_F32, s -> s.arg(0))
            .registerOp(DatatypeOp.FROM_I32, s -> cast(ScalarType.F32, s.arg(0)))
            .registerOp(DatatypeOp.TO_I32, s -> cast(ScalarType.I32, s.arg(0)))
            .registerOp(DatatypeOp.FROM_F64, s -> cast(ScalarType.F32, s.arg(0)))
            .registerMinFunc(s -> new Expr.RealConst(ScalarType.F32, Double.NEGATIVE_INFINITY));
        registry.register(b.build());
    }
}
