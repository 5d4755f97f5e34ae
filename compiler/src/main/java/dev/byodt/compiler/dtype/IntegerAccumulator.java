package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

/**
 * {@link AccumulationMode.Integer}, int:W: the partial sums of a fixed-point MAC array. Values are integers
 * with F fraction bits (the datatype's {@link DatatypeDefinition.Builder#integerAccumulation}); each product of
 * two is exact with 2F fraction bits, each value is shifted to 2F fraction bits, and both are added into a
 * W-bit two's-complement register that wraps modulo 2^W or saturates at every add. The register
 * is modelled in 64 bits, and rounded once per output by the datatype's own exact-accumulator rounding
 * (acc_round), which holds sums in the same units, so int:W and exact differ only where W overflows.
 */
record IntegerAccumulator(RegisteredDatatype datatype, AccumulationMode.Integer mode) implements Accumulator {
    @Override
    public ScalarType type() { return ScalarType.I64; }

    @Override
    public Expr zero() { return constant(0); }

    @Override
    public Expr holding(Expr value) { return add(zero(), value); }

    @Override
    public Expr add(Expr acc, Expr value) {
        long unit = 1L << datatype.instance().integerAccumulationFractionBits();
        return fit(op(ScalarOp.ADD, acc, op(ScalarOp.MUL, widened(value), constant(unit))));
    }

    @Override
    public Expr multiplyAdd(Expr acc, Expr a, Expr b) {
        return fit(op(ScalarOp.ADD, acc, op(ScalarOp.MUL, widened(a), widened(b))));
    }

    @Override
    public Expr round(Expr acc) {
        ScalarType exact = datatype.instance().exactAccumulator().orElseThrow();
        Expr held = exact == ScalarType.I64 ? acc : new Expr.Op(ScalarOp.CAST, exact, List.of(acc));
        return datatype.apply(DatatypeOp.ACC_ROUND, List.of(held));
    }

    /** A sum (at most W + 1 bits) brought back into W bits, as the register's overflow says. */
    private Expr fit(Expr sum) {
        long half = 1L << (mode.width() - 1);
        return switch (mode.overflow()) {
            case SATURATE -> op(ScalarOp.MIN, op(ScalarOp.MAX, sum, constant(-half)), constant(half - 1));
            case WRAP -> {
                // ((sum + half) mod 2^W) - half, with a remainder taken toward minus infinity.
                Expr remainder = op(ScalarOp.REM, op(ScalarOp.ADD, sum, constant(half)), constant(2 * half));
                Expr nonNegative = new Expr.Op(ScalarOp.SELECT, ScalarType.I64, List.of(
                    Exprs.lt(remainder, constant(0)),
                    op(ScalarOp.ADD, remainder, constant(2 * half)), remainder));
                yield op(ScalarOp.SUB, nonNegative, constant(half));
            }
        };
    }

    /** A value of the datatype (its two's-complement storage integer) sign-extended to the register. */
    private static Expr widened(Expr value) { return new Expr.Op(ScalarOp.CAST, ScalarType.I64, List.of(value)); }

    private static Expr constant(long value) { return new Expr.IntConst(ScalarType.I64, value); }

    private static Expr op(ScalarOp op, Expr a, Expr b) { return new Expr.Op(op, ScalarType.I64, List.of(a, b)); }
}
