package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.ne;
import static dev.byodt.compiler.kernel.Exprs.or;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * A real value rounded to the nearest integer, ties to even, as an int64: how ONNX's quantizing operators
 * turn a scaled value into an integer. The value is computed in whatever datatype it has (the --dtype for
 * REAL); only its integer and fractional parts are compared here, both exact in that datatype, so the
 * rounding adds no error of its own.
 */
final class RoundHalfEven {
    private RoundHalfEven() {}

    /**
     * Magnitudes are first clamped to 2^40, beyond every integer type quantization saturates to
     * (int32 plus a zero point), so that the conversion to int64 cannot overflow.
     */
    private static final double LIMIT = 0x1p40;

    /**
     * The datatype's own conversion to an integer gives an integer within one of the value (it truncates
     * for IEEE-style floats and fixed point, rounds for posits); the exact remainder then decides the step.
     */
    static Expr toInt64(Expr value) {
        Expr x = min(max(value, constant(value.type(), -LIMIT)), constant(value.type(), LIMIT));
        Expr near = cast(ScalarType.I64, x);
        Expr fraction = sub(x, cast(x.type(), near));
        Expr half = constant(x.type(), 0.5);
        Expr minusHalf = constant(x.type(), -0.5);
        Expr odd = ne(rem(near, 2), idx(0));
        Expr up = or(gt(fraction, half), and(eq(fraction, half), odd));
        Expr down = or(lt(fraction, minusHalf), and(eq(fraction, minusHalf), odd));
        return select(up, add(near, 1), select(down, sub(near, 1), near));
    }
}
