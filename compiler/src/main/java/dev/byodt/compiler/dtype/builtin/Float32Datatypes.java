package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BuiltInLibraries;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.ValueGrid;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static dev.byodt.compiler.kernel.Exprs.cast;

/**
 * IEEE binary32, the reference datatype every other one is measured against, registered like them.
 * Each scalar operation is computed as its {@link ScalarOp#float32Lowering()} says: arithmetic, comparisons and
 * square root are machine instructions; the functions computed through double and the roundings to integers call
 * its library (float32.c), whose functions are correctly rounded or within one ulp and need no C library.
 * Its reductions accumulate as dtype: each term one multiply-add of machine floats, by default a multiply then an
 * add, two roundings, which is what ONNX's reference implementation computes, or with --multiply-add fused one
 * fused multiply-add ({@link dev.byodt.compiler.kernel.MultiplyAdd}).
 */
public final class Float32Datatypes implements DatatypePlugin {
    /** The library's functions are named float32_exp, float32_log, ... after the scalar operation. */
    public static final String LIBRARY = "dev/byodt/datatypes/float32/float32.c";

    /** DLPack's code for float, which TVM's registry keeps for it too: custom datatypes start at 129. */
    private static final int DLPACK_FLOAT_CODE = 2;

    @Override
    public void registerWith(DatatypeRegistry registry) {
        DatatypeDefinition.Builder b = DatatypeDefinition.register("float32", DLPACK_FLOAT_CODE)
            .summary("IEEE binary32: machine instructions, and float32.c for "
                + libraryOps().stream().map(ScalarOp::functionName).collect(Collectors.joining(", ")))
            .reference()
            .widths(32)
            .storage(bits -> ScalarType.F32)
            .library(BuiltInLibraries.of(LIBRARY))
            .prefix(i -> "float32")
            .accumulation(AccumulationMode.FLOAT32)
            // Its finite values, so that float32 can be a block datatype's element: 23 fraction bits from 2^-126, subnormals below.
            .valueGrid(i -> new ValueGrid(23, Float.MIN_EXPONENT, Float.MAX_VALUE, true, true));
        for (DatatypeOp op : DatatypeOp.values()) {
            ScalarOp scalar = op.scalarOp();
            if (scalar == null) continue;
            ScalarType result = op.isComparison() ? ScalarType.BOOL : ScalarType.F32;
            b.registerOp(op, s -> lower(scalar, result, s.args()));
        }
        b.registerOp(DatatypeOp.FROM_F32, s -> s.arg(0))
            .registerOp(DatatypeOp.TO_F32, s -> s.arg(0))
            .registerOp(DatatypeOp.FROM_I32, s -> cast(ScalarType.F32, s.arg(0)))
            .registerOp(DatatypeOp.TO_I32, s -> cast(ScalarType.I32, s.arg(0)))
            .registerOp(DatatypeOp.FROM_F64, s -> cast(ScalarType.F32, s.arg(0)))
            .registerMinFunc(s -> new Expr.RealConst(ScalarType.F32, Double.NEGATIVE_INFINITY));
        registry.register(b.build());
    }

    /** float32's {@code op} on float32 operands, as {@link ScalarOp#float32Lowering()} says. */
    private static Expr lower(ScalarOp op, ScalarType result, List<Expr> args) {
        return switch (op.float32Lowering()) {
            case LIBRARY -> new Expr.Call(libraryFunction(op), ScalarType.F32, args);
            case MULTIPLY_ADD -> new Expr.Op(ScalarOp.MAC, ScalarType.F32, args);
            case INSTRUCTION -> new Expr.Op(op, result, args);
        };
    }

    private static String libraryFunction(ScalarOp op) { return "float32_" + op.functionName(); }

    /** The operations float32.c computes: exp, log, ..., as {@link ScalarOp#float32Lowering()} says. */
    public static List<ScalarOp> libraryOps() {
        return Arrays.stream(ScalarOp.values()).filter(op -> op.float32Lowering() == ScalarOp.Float32Lowering.LIBRARY).toList();
    }
}
