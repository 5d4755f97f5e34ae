package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

/**
 * {@link AccumulationMode#DTYPE} on the host for a datatype whose add and mul are the float32 sum and product of
 * the operands' to_f32 values rounded once by from_f32 ({@link DatatypeDefinition.Builder#arithmeticInFloat32}):
 * every add and every multiply still rounds to the datatype, with the library's from_f32, but the accumulator
 * holds its value of the datatype as a float32 (its to_f32) between them, and the operands of products may come
 * decoded ahead of the loops ({@link DecodedProducts}). acc' = q(acc + q(a * b)) with q(x) = to_f32(from_f32(x))
 * is then to_f32 of add(acc, mul(a, b)), and the sum's from_f32 at the end gives back its bits: to_f32 holds every
 * value exactly. (A NaN comes back as the library's one NaN pattern, the only one its conversions and arithmetic
 * produce.)
 */
record RoundedFloat32Accumulator(RegisteredDatatype datatype) implements Accumulator, DecodedProducts {
    @Override
    public ScalarType type() { return ScalarType.F32; }

    @Override
    public Expr zero() { return holding(datatype.constant(0)); }

    @Override
    public Expr holding(Expr value) { return datatype.apply(DatatypeOp.TO_F32, List.of(value)); }

    @Override
    public Expr add(Expr acc, Expr value) { return rounded(ScalarOp.ADD, acc, holding(value)); }

    @Override
    public Expr multiplyAdd(Expr acc, Expr a, Expr b) { return multiplyAddDecoded(acc, holding(a), holding(b)); }

    @Override
    public Expr multiplyAddDecoded(Expr acc, Expr a, Expr b) { return rounded(ScalarOp.ADD, acc, rounded(ScalarOp.MUL, a, b)); }

    @Override
    public Expr round(Expr acc) { return datatype.apply(DatatypeOp.FROM_F32, List.of(acc)); }

    /**
     * The float32 result of {@code op} rounded to the datatype and read back as a float32: by the library's
     * rounded_f32 where it has one, which skips the datatype's encoding, else by from_f32 then to_f32.
     */
    private Expr rounded(ScalarOp op, Expr x, Expr y) {
        Expr result = new Expr.Op(op, ScalarType.F32, List.of(x, y));
        return datatype.lowers(DatatypeOp.ROUNDED_F32) ? datatype.apply(DatatypeOp.ROUNDED_F32, List.of(result)) : holding(round(result));
    }
}
