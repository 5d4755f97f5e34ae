package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.reference.Erf;

import java.util.List;

/**
 * References for the elementary functions: Java's Math.* (StrictMath for sin and cos) in double ({@link Erf}
 * for erf, which Java lacks), then the exact posit rounding of that number. A double result is within an ulp or
 * two of the true value, so it decides the rounding except when the true value lies within about 2^-50
 * (relative) of a rounding boundary (a midpoint, or in the directed modes a posit): {@link #tolerated} names those cases.
 *
 * <p>Semantics: NaR in gives NaR out; results that are nonzero reals are never 0 and finite ones never NaR, so
 * a double overflow means maxPos and an underflow minPos. log x is NaR for x <= 0; pow follows C99 on the
 * reals (x^0 = 1, 1^y = 1, 0^y = NaR for y < 0, a negative x needs an integer y).
 */
final class PositMathReference {
    /** How close (relative) a reference value must be to a rounding boundary for either neighbour to be accepted. */
    static final double TOLERANCE = 0x1p-40;

    private final PositReference r;

    PositMathReference(PositReference r) { this.r = r; }

    /** A reference result: the pattern and the (approximate) exact value it was rounded from. */
    record Result(long pattern, Exact value) {}

    Result exp(long p) {
        if (r.isNar(p)) return nar();
        return positive(Math.exp(r.toDouble(p)));
    }

    Result log(long p) {
        if (r.isNar(p) || r.signed(p) <= 0) return nar();
        return of(Math.log(r.toDouble(p)));
    }

    Result tanh(long p) {
        if (r.isNar(p)) return nar();
        return of(Math.tanh(r.toDouble(p)));
    }

    Result sigmoid(long p) {
        if (r.isNar(p)) return nar();
        return positive(1 / (1 + Math.exp(-r.toDouble(p))));
    }

    Result erf(long p) {
        if (r.isNar(p)) return nar();
        return of(Erf.erf(r.toDouble(p)));
    }

    /** StrictMath's sin and cos: fdlibm's, within an ulp, with an exact reduction of large arguments. */
    Result sin(long p) {
        if (r.isNar(p)) return nar();
        return of(StrictMath.sin(r.toDouble(p)));
    }

    Result cos(long p) {
        if (r.isNar(p)) return nar();
        return of(StrictMath.cos(r.toDouble(p)));
    }

    Result pow(long a, long b) {
        if (r.isNar(a) || r.isNar(b)) return nar();
        double x = r.toDouble(a), y = r.toDouble(b);
        if (y == 0 || x == 1) return of(1);
        if (x == 0) return y < 0 ? nar() : of(0);
        if (x < 0 && y != Math.rint(y)) return nar();
        double z = Math.pow(x, y);
        double magnitude = Math.abs(z);
        double finite = magnitude == Double.POSITIVE_INFINITY ? Double.MAX_VALUE : magnitude == 0 ? Double.MIN_VALUE : magnitude;
        return of(Math.copySign(finite, z));
    }

    /**
     * Whether a C result that differs from the reference is acceptable: both neighbours of a rounding boundary that
     * the reference value lies within {@link #TOLERANCE} (relative) of: their midpoint when rounding to nearest,
     * either of them in the other modes, whose boundaries are the posits themselves.
     */
    boolean tolerated(long actual, Result expected) {
        if (expected.value == null || r.isNar(actual) || r.isNar(expected.pattern)) return false;
        long lo = Math.min(r.signed(actual), r.signed(expected.pattern)), hi = Math.max(r.signed(actual), r.signed(expected.pattern));
        if (hi - lo != 1) return false;
        boolean nearest = r.mode() == RoundingMode.NEAREST_EVEN || r.mode() == RoundingMode.NEAREST_AWAY;
        List<Exact> boundaries = nearest ? List.of(r.midpointAbove(lo)) : List.of(r.value(lo & r.mask()), r.value(hi & r.mask()));
        return boundaries.stream().anyMatch(boundary ->
            expected.value.subtract(boundary).abs().compareTo(boundary.abs().multiply(Exact.of(TOLERANCE))) <= 0);
    }

    private Result nar() { return new Result(r.nar(), null); }

    private Result of(double d) {
        Exact e = Exact.of(d);
        return new Result(r.round(e), e);
    }

    /** A positive real computed in double: overflow still means a finite value, underflow a nonzero one. */
    private Result positive(double d) {
        if (d == Double.POSITIVE_INFINITY) return new Result(r.maxPos(), null);
        if (d == 0) return new Result(1, null);
        return of(d);
    }
}
