package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * IEEE binary32, the reference every other datatype is measured against. Each scalar operation is computed as
 * its {@link ScalarOp#float32Lowering()} says: arithmetic, comparisons and square root are machine
 * instructions; the functions computed through double and the roundings to integers call its library
 * (float32.c), whose functions are correctly rounded or within one ulp and need no C library.
 * A multiply-accumulate is a multiply then an add, two roundings and no fused multiply-add, which is what
 * ONNX's reference implementation computes.
 */
public final class Float32 implements Datatype {
    /** The library's functions are named float32_exp, float32_log, ... after the scalar operation. */
    public static final String LIBRARY = "dev/byodt/datatypes/float32/float32.c";

    /** DLPack's code for float, which TVM's registry keeps for it too: custom datatypes start at 129. */
    public static final int TYPE_CODE = 2;

    private static final NativeLibrary NATIVE_LIBRARY = NativeLibrary.of(BuiltInLibraries.of(LIBRARY));

    @Override
    public String name() { return "float32"; }

    @Override
    public ScalarType storageType() { return ScalarType.F32; }

    @Override
    public Expr constant(double value) { return new Expr.RealConst(ScalarType.F32, (float) value); }

    @Override
    public Expr lower(Expr.Op op, List<Expr> args) {
        ScalarType type = op.type().isAbstract() ? ScalarType.F32 : op.type();
        return switch (op.op().float32Lowering()) {
            case LIBRARY -> new Expr.Call(libraryFunction(op.op()), ScalarType.F32, args);
            case MULTIPLY_THEN_ADD -> new Expr.Op(ScalarOp.ADD, ScalarType.F32,
                List.of(args.get(0), new Expr.Op(ScalarOp.MUL, ScalarType.F32, List.of(args.get(1), args.get(2)))));
            case INSTRUCTION -> new Expr.Op(op.op(), type, args);
        };
    }

    @Override
    public Optional<NativeLibrary> library() { return Optional.of(NATIVE_LIBRARY); }

    public static String libraryFunction(ScalarOp op) { return "float32_" + op.functionName(); }

    /** The operations float32.c computes, as {@link ScalarOp#float32Lowering()} says: exp, log, ... */
    public static List<ScalarOp> libraryOps() {
        return Arrays.stream(ScalarOp.values()).filter(op -> op.float32Lowering() == ScalarOp.Float32Lowering.LIBRARY).toList();
    }
}
