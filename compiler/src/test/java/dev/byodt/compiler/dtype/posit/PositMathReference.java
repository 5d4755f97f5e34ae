package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.reference.Erf;

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
     * Whether a C result that differs from the reference is acceptable: the rounding of a value within
     * {@link #TOLERANCE} (relative) of the reference value, which then lies that close to a rounding boundary (a
     * midpoint, or in the directed modes a posit), or a posit that close to it (the boundary itself: erf(5.75) =
     * 1 - 4e-16, which the library may compute as 1 + 2e-16, rounds to odd to the pattern above 1, not below).
     */
    boolean tolerated(long actual, Result expected) {
        if (expected.value == null || r.isNar(actual) || r.isNar(expected.pattern)) return false;
        Exact slack = expected.value.abs().multiply(Exact.of(TOLERANCE));
        if (actual == r.round(expected.value.subtract(slack)) || actual == r.round(expected.value.add(slack))) return true;
        return r.value(actual).subtract(expected.value).abs().compareTo(slack) <= 0;
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
