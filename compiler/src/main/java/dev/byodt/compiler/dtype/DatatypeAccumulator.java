package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

/**
 * {@link AccumulationMode#DTYPE}: the accumulator is a value of the datatype, and every add and every
 * multiply rounds to it (TVM's semantics). For float32, whose values are machine floats, each term is the
 * machine's multiply-add ({@link ScalarOp#MAC} on F32): a multiply then an add, two roundings, which is what ONNX's
 * reference implementation computes, or one fused multiply-add with --multiply-add fused.
 */
record DatatypeAccumulator(RegisteredDatatype datatype) implements Accumulator {
    @Override
    public ScalarType type() { return datatype.storageType(); }

    @Override
    public Expr zero() { return datatype.constant(0); }

    @Override
    public Expr holding(Expr value) { return value; }

    @Override
    public Expr add(Expr acc, Expr value) { return datatype.apply(DatatypeOp.of(ScalarOp.ADD), List.of(acc, value)); }

    @Override
    public Expr multiplyAdd(Expr acc, Expr a, Expr b) {
        if (datatype.valuesAreFloat32()) return new Expr.Op(ScalarOp.MAC, ScalarType.F32, List.of(acc, a, b));
        return add(acc, datatype.apply(DatatypeOp.of(ScalarOp.MUL), List.of(a, b)));
    }

    @Override
    public Expr round(Expr acc) { return acc; }
}
