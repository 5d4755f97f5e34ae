package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.PositGrid;
import dev.byodt.compiler.dtype.ValueGrid;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * The run-time rounding of an exact quotient q >= 0 to a posit element, giving what {@link PositGrid#round} gives,
 * by table instead of by the bit string: the positive posits in pattern order (pattern p at index p, 0 at 0) and
 * the midpoints above them (the (N+1)-bit posit of pattern 2p + 1, where rounding to nearest turns), float32
 * constants ({@link ActivationQuantizer#unsupported} admits posits float32 holds, and their (N+1)-bit midpoints are
 * float32s too: N <= 16 and es <= 3 keep their scales within +-120). Posits are monotonic in their patterns, so a
 * bisection of N - 1 steps, a load and a compare each, finds p, the largest pattern with value(p) <= q. The step up
 * to p + 1 is then the direction's: q above the midpoint, or on it with p odd (to nearest, ties to the even
 * pattern); on or above it (ties away); q not a posit (up); q not a posit and p even (to odd). The pattern is
 * clamped to 1 .. maxpos for q > 0, as the standard rounds in every mode: below minpos to minpos, never 0, and
 * from maxpos up to maxpos.
 */
final class PositElementRounding {
    /** The widest posit element: tables of 2^15 values. */
    static final int MOST_BITS = 16;

    private final KernelBuilder kb;
    private final PositGrid posit;
    private final Buffer values, midpoints;

    PositElementRounding(KernelBuilder kb, PositGrid posit) {
        this.kb = kb;
        this.posit = posit;
        int count = (int) posit.largestPattern() + 1;
        float[] value = new float[count], midpoint = new float[count];
        for (int p = 0; p < count; p++) {
            value[p] = (float) posit.value(p);
            midpoint[p] = (float) posit.midpointAbove(p);
        }
        values = kb.constant("posit.values", ScalarType.F32, Tensor.ofFloats(new long[] {count}, value));
        midpoints = kb.constant("posit.midpoints", ScalarType.F32, Tensor.ofFloats(new long[] {count}, midpoint));
    }

    /** The posit magnitude (F64) of q (F64, exact, >= 0) rounded in {@code direction}. */
    Expr round(Expr q, ValueGrid.Direction direction) {
        Local below = kb.local("posit.below", idx(0));
        for (long step = Long.highestOneBit(posit.largestPattern()); step >= 1; step >>= 1) {
            Expr candidate = add(kb.get(below), idx(step));
            kb.assign(below, select(le(valueAt(candidate), q), candidate, kb.get(below)));
        }
        Expr pattern = kb.get(below);
        Expr inexact = ne(q, valueAt(pattern));
        Expr midpoint = cast(ScalarType.F64, kb.load(midpoints, pattern));
        Expr odd = eq(rem(pattern, 2), idx(1));
        Expr stepUp = switch (direction) {
            case NEAREST_EVEN -> or(gt(q, midpoint), and(eq(q, midpoint), odd));
            case NEAREST_AWAY -> ge(q, midpoint);
            case UP -> inexact;
            case TOWARD_ZERO -> bool(false);
            case ODD -> and(inexact, not(odd));
        };
        Expr stepped = add(pattern, select(stepUp, idx(1), idx(0)));
        Expr clamped = min(max(stepped, select(gt(q, f64(0)), idx(1), idx(0))), idx(posit.largestPattern()));
        return valueAt(clamped);
    }

    private Expr valueAt(Expr pattern) { return cast(ScalarType.F64, kb.load(values, pattern)); }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
