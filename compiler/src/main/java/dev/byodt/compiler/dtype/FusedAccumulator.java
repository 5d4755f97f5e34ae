package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;
import java.util.Optional;

/**
 * {@link AccumulationMode.Fused}: a fused dot-product unit, in common/fused_dot.c (whose comment is the exact
 * definition). Each value goes to the unit as float32 (to_f32, exact for the datatypes that support the mode);
 * the unit keeps a float32 accumulator and the pending products of the current group of G, rounds each full
 * group into the accumulator, and the output is the accumulator rounded to the datatype once (from_f32). The
 * state is a wide integer holding the accumulator and G products of 64 bits, updated in place by the library.
 */
record FusedAccumulator(RegisteredDatatype datatype, AccumulationMode.Fused mode) implements Accumulator {
    static final NativeLibrary LIBRARY = NativeLibrary.of(LibrarySource.resource("dev/byodt/datatypes/common/fused_dot.c"));

    @Override
    public ScalarType type() {
        int bits = 128;
        while (bits < (mode.group() + 1) * Long.SIZE) bits *= 2;
        return ScalarType.integerOfBits(bits);
    }

    @Override
    public Expr zero() { return new Expr.IntConst(type(), 0); }

    @Override
    public Expr holding(Expr value) { return update("byodt_fused_start", zero(), List.of(float32(value))); }

    @Override
    public Expr add(Expr acc, Expr value) { return update("byodt_fused_add", acc, List.of(float32(value), fractionBits(), group(), rne())); }

    @Override
    public Expr multiplyAdd(Expr acc, Expr a, Expr b) {
        return update("byodt_fused_mac", acc, List.of(float32(a), float32(b), fractionBits(), group(), rne()));
    }

    @Override
    public Expr round(Expr acc) {
        Expr result = new Expr.Call("byodt_fused_result", ScalarType.F32, List.of(acc, fractionBits(), rne()),
            Expr.Call.Passing.READS_FIRST_BY_POINTER);
        return datatype.apply(DatatypeOp.FROM_F32, List.of(result));
    }

    @Override
    public Optional<NativeLibrary> library() { return Optional.of(LIBRARY); }

    private Expr update(String function, Expr acc, List<Expr> operands) {
        List<Expr> args = new java.util.ArrayList<>(List.of(acc));
        args.addAll(operands);
        return new Expr.Call(function, type(), args, Expr.Call.Passing.UPDATES_FIRST_IN_PLACE);
    }

    private Expr float32(Expr value) { return datatype.apply(DatatypeOp.TO_F32, List.of(value)); }

    private Expr fractionBits() { return int32(mode.fractionBits()); }

    private Expr group() { return int32(mode.group()); }

    private Expr rne() { return int32(mode.rounding() == AccumulationMode.Rounding.RNE ? 1 : 0); }

    private static Expr int32(int value) { return new Expr.IntConst(ScalarType.I32, value); }
}
