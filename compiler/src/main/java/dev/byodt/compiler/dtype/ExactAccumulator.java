package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

/**
 * {@link AccumulationMode#EXACT}: the datatype's wide fixed-point accumulator (a quire), which its library
 * updates in place with every value (acc_add) and every product of two values (acc_mac) without rounding,
 * and rounds once per output (acc_round). Values go to the library as they are: the accumulator's bits are
 * the library's own (minifloat.c keeps NaN and infinities beside the number), so byodt never adds them as
 * integers.
 */
record ExactAccumulator(RegisteredDatatype datatype) implements Accumulator {
    @Override
    public ScalarType type() { return datatype.instance().exactAccumulator().orElseThrow(); }

    @Override
    public Expr zero() { return new Expr.IntConst(type(), 0); }

    @Override
    public Expr holding(Expr value) { return add(zero(), value); }

    @Override
    public Expr add(Expr acc, Expr value) { return datatype.apply(DatatypeOp.ACC_ADD, List.of(acc, value)); }

    @Override
    public Expr multiplyAdd(Expr acc, Expr a, Expr b) { return datatype.apply(DatatypeOp.ACC_MAC, List.of(acc, a, b)); }

    @Override
    public Expr round(Expr acc) { return datatype.apply(DatatypeOp.ACC_ROUND, List.of(acc)); }
}
