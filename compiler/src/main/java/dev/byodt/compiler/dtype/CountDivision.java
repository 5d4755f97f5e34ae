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
 * <li>A count the datatype holds exactly (its constant n, read back at compile time, is n) divides as every mean
 *     always has, div(sum, n): float32, the posits, float16 and bfloat16 hold the counts of real models, and
 *     fixed point those below its range; their code and results stay as they were.</li>
 * <li>A count it does not hold, where it lowers div_i32 (fixed point: fxp16_13, whose range ends below 4, holds
 *     none from 4 on), divides by the count as an integer: the quotient of the stored integer by n, rounded
 *     once, is the correctly rounded mean, and the same as div(sum, n) would be if the format held n.</li>
 * <li>Any other count (posit8 holds 24 and 28 but not 25, fp8e4m3 no odd number above 15) multiplies by the
 *     datatype's nearest value of 1/n instead of dividing by another number than n: one more rounding, no
 *     systematic error.</li>
 * </ul>
 * A count known only at run time (AveragePool without its padding) is converted at run time when the datatype
 * holds every count up to the largest, as before; otherwise it goes to div_i32, or selects its 1/n.
 */
final class CountDivision {
    private final RegisteredDatatype datatype;
    private final Map<Long, Boolean> held = new HashMap<>();

    CountDivision(RegisteredDatatype datatype) {
        this.datatype = datatype;
    }

    /** {@code value} (storage) divided by {@code count} (an I64, at most {@code largestCount}). */
    Expr lower(Expr value, Expr count, long largestCount) {
        if (count instanceof Expr.IntConst n) return byConstant(value, n.value());
        List<Long> unheld = new ArrayList<>();
        for (long n = 1; n <= largestCount; n++) if (!holds(n)) unheld.add(n);
        if (unheld.isEmpty()) return byConvertedCount(value, count);
        if (datatype.lowers(DatatypeOp.DIV_I32)) return byInteger(value, count);
        Expr reciprocal = reciprocal(unheld.getLast());
        Expr isUnheld = equals(count, unheld.getLast());
        for (long n : unheld.reversed().subList(1, unheld.size())) {
            reciprocal = new Expr.Op(ScalarOp.SELECT, reciprocal.type(), List.of(equals(count, n), reciprocal(n), reciprocal));
            isUnheld = new Expr.Op(ScalarOp.OR, ScalarType.BOOL, List.of(equals(count, n), isUnheld));
        }
        Expr byReciprocal = datatype.valueOp(ScalarOp.MUL, List.of(value, reciprocal));
        Expr byCount = byConvertedCount(value, count);
        return new Expr.Op(ScalarOp.SELECT, byCount.type(), List.of(isUnheld, byReciprocal, byCount));
    }

    private Expr byConstant(Expr value, long n) {
        if (holds(n)) return datatype.valueOp(ScalarOp.DIV, List.of(value, datatype.constant(n)));
        if (datatype.lowers(DatatypeOp.DIV_I32)) return byInteger(value, new Expr.IntConst(ScalarType.I64, n));
        return datatype.valueOp(ScalarOp.MUL, List.of(value, reciprocal(n)));
    }

    private Expr byConvertedCount(Expr value, Expr count) {
        return datatype.valueOp(ScalarOp.DIV, List.of(value, datatype.cast(ScalarType.I64, ScalarType.REAL, count)));
    }

    private Expr byInteger(Expr value, Expr count) {
        return datatype.apply(DatatypeOp.DIV_I32, List.of(value, new Expr.Op(ScalarOp.CAST, ScalarType.I32, List.of(count))));
    }

    private boolean holds(long n) { return held.computeIfAbsent(n, datatype::holdsExactly); }

    /** The datatype's nearest value of 1/n: the double nearest 1/n, converted once. */
    private Expr reciprocal(long n) { return datatype.constant(1.0 / n); }

    private static Expr equals(Expr count, long n) {
        return new Expr.Op(ScalarOp.EQ, ScalarType.BOOL, List.of(count, new Expr.IntConst(ScalarType.I64, n)));
    }
}
