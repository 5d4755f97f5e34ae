package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

/**
 * {@link AccumulationMode#FLOAT32}: each value is converted to float32 (to_f32), products and sums are
 * float32 machine instructions (a multiply then an add, or one fused multiply-add with --multiply-add fused, as
 * float32-accumulating hardware with fused units computes), and the sum is rounded to the datatype once per
 * output (from_f32). Its products take operands decoded ahead of the loops as they are
 * ({@link DecodedProducts}): the product of two values is the product of their to_f32 values.
 */
record Float32Accumulator(RegisteredDatatype datatype) implements Accumulator, DecodedProducts {
    @Override
    public ScalarType type() { return ScalarType.F32; }

    @Override
    public Expr zero() { return new Expr.RealConst(ScalarType.F32, 0); }

    @Override
    public Expr holding(Expr value) { return datatype.apply(DatatypeOp.TO_F32, List.of(value)); }

    @Override
    public Expr add(Expr acc, Expr value) { return sum(acc, holding(value)); }

    @Override
    public Expr multiplyAdd(Expr acc, Expr a, Expr b) { return multiplyAddDecoded(acc, holding(a), holding(b)); }

    @Override
    public Expr multiplyAddDecoded(Expr acc, Expr a, Expr b) { return new Expr.Op(ScalarOp.MAC, ScalarType.F32, List.of(acc, a, b)); }

    @Override
    public Expr round(Expr acc) { return datatype.apply(DatatypeOp.FROM_F32, List.of(acc)); }

    private static Expr sum(Expr acc, Expr term) { return new Expr.Op(ScalarOp.ADD, ScalarType.F32, List.of(acc, term)); }
}
