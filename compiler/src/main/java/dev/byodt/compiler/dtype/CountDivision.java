package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How a datatype divides a mean by its element count ({@link ScalarOp#DIVIDE_BY_COUNT}), decided when it is
 * lowered, from the datatype alone:
 * <ul>
 * <li>A datatype that lowers div_i32 (fixed point) divides by the count as an integer: for fixed point the
 *     quotient of the stored integer by the count, rounded once, is the correctly rounded mean, whether or not
 *     the format holds the count (fxp16_13, whose range ends below 4, holds none from 4 on).</li>
 * <li>Otherwise, a count the datatype holds exactly (its constant n, read back at compile time, is n) divides
 *     as every mean always has, div(sum, n): float32, the posits and bfloat16 hold the counts of real models,
 *     and their results keep their bits.</li>
 * <li>A count it does not hold (posit8 holds 24 and 28 but not 25, fp8e4m3 nothing odd above 15) multiplies by
 *     the datatype's nearest value of 1/n instead of dividing by another number than n: one more rounding, no
 *     systematic error.</li>
 * </ul>
 * A count known only at run time (AveragePool without its padding) divides by the count converted at run time
 * when the datatype holds every count up to the largest, as before; otherwise the counts it does not hold
 * select their 1/n.
 */
final class CountDivision {
    private final RegisteredDatatype datatype;
    private final Map<Long, Boolean> held = new HashMap<>();

    CountDivision(RegisteredDatatype datatype) {
        this.datatype = datatype;
    }

    /** {@code value} (storage) divided by {@code count} (an I64, at most {@code largestCount}). */
    Expr lower(Expr value, Expr count, long largestCount) {
        if (datatype.lowers(DatatypeOp.DIV_I32)) {
            return datatype.apply(DatatypeOp.DIV_I32, List.of(value, new Expr.Op(ScalarOp.CAST, ScalarType.I32, List.of(count))));
        }
        if (count instanceof Expr.IntConst n) return byConstant(value, n.value());
        List<Long> unheld = new ArrayList<>();
        for (long n = 1; n <= largestCount; n++) if (!holds(n)) unheld.add(n);
        Expr byCount = datatype.valueOp(ScalarOp.DIV, List.of(value, datatype.cast(ScalarType.I64, ScalarType.REAL, count)));
        if (unheld.isEmpty()) return byCount;
        Expr reciprocal = reciprocal(unheld.getLast());
        Expr isUnheld = equals(count, unheld.getLast());
        for (long n : unheld.reversed().subList(1, unheld.size())) {
            reciprocal = new Expr.Op(ScalarOp.SELECT, reciprocal.type(), List.of(equals(count, n), reciprocal(n), reciprocal));
            isUnheld = new Expr.Op(ScalarOp.OR, ScalarType.BOOL, List.of(equals(count, n), isUnheld));
        }
        Expr byReciprocal = datatype.valueOp(ScalarOp.MUL, List.of(value, reciprocal));
        return new Expr.Op(ScalarOp.SELECT, byCount.type(), List.of(isUnheld, byReciprocal, byCount));
    }

    private Expr byConstant(Expr value, long n) {
        return holds(n) ? datatype.valueOp(ScalarOp.DIV, List.of(value, datatype.constant(n)))
            : datatype.valueOp(ScalarOp.MUL, List.of(value, reciprocal(n)));
    }

    private boolean holds(long n) { return held.computeIfAbsent(n, datatype::holdsExactly); }

    /** The datatype's nearest value of 1/n: the double nearest 1/n, converted once. */
    private Expr reciprocal(long n) { return datatype.constant(1.0 / n); }

    private static Expr equals(Expr count, long n) {
        return new Expr.Op(ScalarOp.EQ, ScalarType.BOOL, List.of(count, new Expr.IntConst(ScalarType.I64, n)));
    }
}
