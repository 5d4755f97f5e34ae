package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.PositGrid;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.ValueGrid;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * The run-time rounding of the exact quotient q = m / d >= 0 of a magnitude m (a float32) by a block's divisor d
 * (the scale times the tensor scale, exact in double) to a posit element, giving what {@link PositGrid#round} and
 * {@link PositGrid#roundStochastically} give, by table instead of by the bit string, and without dividing: q is
 * compared with a point P by comparing m with P d. The tables are the positive posits in pattern order (pattern p
 * at index p, 0 at 0) and the midpoints above them (the (N+1)-bit posit of pattern 2p + 1, where rounding to
 * nearest turns), float32 constants ({@link ActivationQuantizer#unsupported} admits posits float32 holds, and their
 * (N+1)-bit midpoints are float32s too: N <= 16 and es <= 3 keep their scales within +-120). Posits are monotonic in
 * their patterns, so a bisection of N - 1 steps, a load, a product and a compare each, finds p, the largest pattern
 * with value(p) d <= m. The step up to p + 1 is then the mode's: m above the midpoint's product, or on it with p odd
 * (to nearest, ties to the even pattern); on or above it (ties away); m not value(p) d (up); that and p even (to
 * odd); stochastically, the first bits of (q - lo) / (hi - lo) and the random bits carrying (below). The pattern is
 * clamped to 1 .. maxpos for m > 0, as the standard rounds in every mode: below minpos to minpos, never 0, and from
 * maxpos up to maxpos.
 * <p>
 * Exactness: an N-bit posit has at most N - 2 - es significant bits, so value(p) d and midpoint(p) d (N - 1 - es)
 * are exact while those plus d's bits are at most 53 ({@link #pointBits}; {@link ActivationQuantizer#unsupported} checks). Two neighbours lo < hi are multiples of
 * lo's last bit u (a posit's unit never shrinks as it grows: {@code PositScales}), and hi - lo is u where lo keeps
 * all its exponent bits and (2^j - 1) u, j <= 2^es, where the regime cuts some (posit8 es 2: 2^24 - 2^20), so at most
 * 2^es bits. Stochastically, c + r >= 2^k with c = floor((q - lo) 2^k / (hi - lo)) is
 * (m - lo d) 2^k >= (2^k - r) (hi - lo) d: the right side has at most k + 2^es + bits(d) bits; m - lo d is exact,
 * being below (hi - lo) d and a multiple of u lsb(d) where m's last place is at least that (2^es + bits(d) bits),
 * else below m and a multiple of m's last place (24 bits); so both sides are exact while k + 2^es + bits(d) <= 53.
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

    /**
     * The most significant bits of a point the rounding in {@code mode} compares q with, whose product with the
     * divisor must be exact: N - 2 - es for the posits the bisection reads, N - 1 - es for the midpoints of the
     * nearest modes, and stochastically with {@code srBits} random bits srBits + 2^es, the right side of its
     * comparison without the divisor (see the class comment).
     */
    static int pointBits(PositGrid posit, RoundingMode mode, int srBits) {
        int significand = posit.bits() - 2 - posit.es();
        return switch (mode) {
            case NEAREST_EVEN, NEAREST_AWAY -> significand + 1;
            case STOCHASTIC -> Math.max(significand, srBits + (1 << posit.es()));
            default -> significand;
        };
    }

    /** The posit magnitude (F64) of m / d (m, d F64, m >= 0 a float32, d > 0 exact) rounded in {@code direction}. */
    Expr round(Expr m, Expr d, ValueGrid.Direction direction) {
        Expr pattern = below(m, d);
        Expr product = mul(valueAt(pattern), d);
        Expr inexact = ne(m, product);
        Expr midpoint = mul(cast(ScalarType.F64, kb.load(midpoints, pattern)), d);
        Expr odd = eq(rem(pattern, 2), idx(1));
        Expr stepUp = switch (direction) {
            case NEAREST_EVEN -> or(gt(m, midpoint), and(eq(m, midpoint), odd));
            case NEAREST_AWAY -> ge(m, midpoint);
            case UP -> inexact;
            case TOWARD_ZERO -> bool(false);
            case ODD -> and(inexact, not(odd));
        };
        return clamped(m, pattern, stepUp);
    }

    /**
     * The posit magnitude (F64) of m / d rounded stochastically with the {@code bits} random bits {@code random}
     * (I32): up from the posit lo below it to hi, the next, when (m - lo d) 2^bits >= (2^bits - random) (hi - lo) d
     * (see the class comment); from maxpos, whose hi is itself, always up, which the clamp takes back.
     */
    Expr roundStochastically(Expr m, Expr d, Expr random, int bits) {
        Expr pattern = below(m, d);
        Local low = kb.local("posit.low", valueAt(pattern));
        Expr high = valueAt(min(add(pattern, idx(1)), idx(posit.largestPattern())));
        Expr cut = mul(sub(m, mul(kb.get(low), d)), f64(Math.scalb(1.0, bits)));
        Expr needed = mul(mul(sub(f64(Math.scalb(1.0, bits)), cast(ScalarType.F64, random)), sub(high, kb.get(low))), d);
        return clamped(m, pattern, ge(cut, needed));
    }

    /** The largest pattern p with value(p) d <= m, by bisection. */
    private Expr below(Expr m, Expr d) {
        Local below = kb.local("posit.below", idx(0));
        for (long step = Long.highestOneBit(posit.largestPattern()); step >= 1; step >>= 1) {
            Expr candidate = add(kb.get(below), idx(step));
            kb.assign(below, select(le(mul(valueAt(candidate), d), m), candidate, kb.get(below)));
        }
        return kb.get(below);
    }

    /** The value of pattern, one up where {@code stepUp}, clamped to minpos .. maxpos for m > 0. */
    private Expr clamped(Expr m, Expr pattern, Expr stepUp) {
        Expr stepped = add(pattern, select(stepUp, idx(1), idx(0)));
        return valueAt(min(max(stepped, select(gt(m, f64(0)), idx(1), idx(0))), idx(posit.largestPattern())));
    }

    private Expr valueAt(Expr pattern) { return cast(ScalarType.F64, kb.load(values, pattern)); }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
