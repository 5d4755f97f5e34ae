package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.PositGrid;
import dev.byodt.compiler.dtype.ValueGrid;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * The run-time rounding of a quotient q >= 0 (a double: the exact quotient of a magnitude by a block's divisor, or
 * that rounded to odd) to a posit element of any width up to 32 bits, giving what {@link PositGrid#round} and
 * {@link PositGrid#roundStochastically} give, computed from q's binade rather than from a table of posits:
 * <ul>
 * <li>s = floor(log2 q) from the exponent field of q's bits (q is clamped to minpos .. maxpos first, within
 *     2^-240 .. 2^240, so a normal double); k = floor(s / 2^es), the regime; its length r = k + 2 for k >= 0, 1 - k
 *     below; and the fraction bits the pattern keeps, f = N - 1 - r - es. The neighbours are computed on q's bits: a
 *     positive double's bits order as its value, and one more in the bits above its fraction's last place is one unit
 *     more there, a carry out of the fraction the next binade.</li>
 * <li>Where f >= 0 the posits of the binade are the multiples of u = 2^(s - f): lo = floor(q / u) u, q's bits with
 *     all but the first f fraction bits cleared; hi = lo + u (2^(s+1) at the binade's top, the next binade's first
 *     posit), and the (N+1)-bit posit between them, where rounding to nearest turns, lo + u / 2.</li>
 * <li>Where f < 0 the regime leaves es - c exponent bits, c = -f: the posits are 2^(s - s mod 2^c) = lo, hi =
 *     lo 2^(2^c) (the next pattern up, across the regime's boundary too) and the midpoint, one exponent bit more,
 *     lo 2^(2^(c-1)): geometric, steps of the exponent field.</li>
 * <li>The pattern's last bit, for ties to even and rounding to odd: the fraction's last bit where f >= 1; else the
 *     last exponent bit kept, bit c of s (e = s - k 2^es has s's low bits), or where none is kept the regime's
 *     terminating bit, 1 below k = 0.</li>
 * <li>The step up to hi is then the mode's: q above the midpoint, or on it with lo's pattern odd; on or above it;
 *     q not lo (up); that and lo's pattern even (to odd); stochastically with k random bits r,
 *     (q - lo) 2^k >= (2^k - r) (hi - lo) (q - lo exact by Sterbenz, as lo <= q < 2 lo; hi - lo is u or lo times
 *     2^(2^c) - 1, at most 2^es bits; so both sides are exact). The result is clamped as the standard rounds in
 *     every mode: 0 stays 0, below minpos to minpos, from maxpos up to maxpos.</li>
 * </ul>
 * Why a rounded quotient decides as the exact one: the points compared with q are posits and midpoints (at most
 * N - es <= 32 significant bits) and stochastically lo + j (hi - lo) 2^-k (f + 1 + k <= 46 bits, or k + 2^es <= 24),
 * all of at most 52 bits, on whose side the quotient rounded to odd lies with the exact one, equal only where it is
 * ({@link RoundingToOdd}). Nothing overflows: q is clamped to minpos .. maxpos (within 2^-240 .. 2^240) first.
 */
final class PositElementRounding {
    private final KernelBuilder kb;
    private final PositGrid posit;

    PositElementRounding(KernelBuilder kb, PositGrid posit) {
        this.kb = kb;
        this.posit = posit;
    }

    /** The posit magnitude (F64) of q (F64, >= 0) rounded in {@code direction}. */
    Expr round(Expr q, ValueGrid.Direction direction) {
        Neighbours n = neighbours(q);
        Expr inexact = ne(n.q(), n.low());
        Expr stepUp = switch (direction) {
            case NEAREST_EVEN -> or(gt(n.q(), n.midpoint()), and(eq(n.q(), n.midpoint()), n.lowIsOdd()));
            case NEAREST_AWAY -> ge(n.q(), n.midpoint());
            case UP -> inexact;
            case TOWARD_ZERO -> bool(false);
            case ODD -> and(inexact, not(n.lowIsOdd()));
        };
        return clamped(q, select(stepUp, n.high(), n.low()));
    }

    /**
     * The posit magnitude (F64) of q rounded stochastically with the {@code bits} random bits {@code random} (I32): up
     * from lo to hi when (q - lo) 2^bits >= (2^bits - random) (hi - lo).
     */
    Expr roundStochastically(Expr q, Expr random, int bits) {
        Neighbours n = neighbours(q);
        Expr cut = mul(sub(n.q(), n.low()), f64(Math.scalb(1.0, bits)));
        Expr needed = mul(sub(f64(Math.scalb(1.0, bits)), cast(ScalarType.F64, random)), sub(n.high(), n.low()));
        return clamped(q, select(ge(cut, needed), n.high(), n.low()));
    }

    /**
     * The posits lo <= q < hi around q clamped to minpos .. maxpos (F64; at the ends {@link #clamped} decides), the
     * (N+1)-bit posit between them, and whether lo's pattern is odd.
     */
    private record Neighbours(Expr q, Expr low, Expr high, Expr midpoint, Expr lowIsOdd) {}

    private Neighbours neighbours(Expr quotient) {
        Local q = kb.local("posit.q", ActivationQuantizer.smaller(ActivationQuantizer.larger(quotient, f64(posit.smallest())), f64(posit.largest())));
        // q is a normal double: its bits are the exponent field s + 1023 above 52 fraction bits, and the bits of
        // positive doubles order and step as their values do, so the neighbours are q's bits cut and moved.
        Local bits = kb.local("posit.q.bits", bitcast(ScalarType.I64, kb.get(q)));
        // s + bias >= 0 with the bias a multiple of 2^es, so that shifts and remainders by powers of two floor.
        long bias = (long) Integer.highestOneBit(posit.maxExponent()) << 2 << posit.es();
        Local shifted = kb.local("posit.shifted", add(shiftRight(kb.get(bits), 52), idx(bias - 1023)));
        Local regime = kb.local("posit.regime", sub(shiftRight(kb.get(shifted), posit.es()), idx(bias >> posit.es())));
        Expr regimeBits = select(ge(kb.get(regime), 0), add(kb.get(regime), idx(2)), sub(idx(1), kb.get(regime)));
        Local fractionBits = kb.local("posit.fraction.bits", sub(idx(posit.bits() - 1 - posit.es()), regimeBits));
        // f >= 0: lo is q with all but its first f fraction bits cleared, hi one unit 2^(52 - f) of the bits above
        // (a carry out of the fraction is the next binade, 2^(s+1)), the midpoint half a unit.
        Local dropped = kb.local("posit.dropped", sub(idx(52), max(kb.get(fractionBits), 0)));
        Local unit = kb.local("posit.unit", shiftedOne(kb.get(dropped)));
        Local kept = kb.local("posit.kept", shiftRight(kb.get(bits), kb.get(dropped)));
        Local linearLow = kb.local("posit.linear.low", mul(kb.get(kept), kb.get(unit)));
        // f < 0: c = -f exponent bits cut, lo = 2^(s - s mod 2^c) and the posits 2^(2^c) apart, steps of the exponent field.
        Local cut = kb.local("posit.cut", max(sub(idx(0), kb.get(fractionBits)), 0));
        Local geometricLow = kb.local("posit.geometric.low",
            mul(add(sub(kb.get(shifted), remainder(kb.get(shifted), kb.get(cut))), idx(1023 - bias)), idx(1L << 52)));
        Expr linear = ge(kb.get(fractionBits), 0);
        Expr low = select(linear, kb.get(linearLow), kb.get(geometricLow));
        Expr high = select(linear, add(kb.get(linearLow), kb.get(unit)), add(kb.get(geometricLow), mul(shiftedOne(kb.get(cut)), idx(1L << 52))));
        Expr midpoint = select(linear, add(kb.get(linearLow), shiftRight(kb.get(unit), 1)),
            add(kb.get(geometricLow), mul(shiftedOne(max(sub(kb.get(cut), idx(1)), 0)), idx(1L << 52))));
        Expr exponentBitOdd = eq(remainder(shiftRight(kb.get(shifted), kb.get(cut)), idx(1)), idx(1));
        Expr lastBitOdd = select(ge(kb.get(fractionBits), 1), eq(remainder(kb.get(kept), idx(1)), idx(1)),
            select(lt(kb.get(cut), idx(posit.es())), exponentBitOdd, lt(kb.get(regime), 0)));
        return new Neighbours(kb.get(q), kb.get(kb.local("posit.low", bitcast(ScalarType.F64, low))),
            kb.get(kb.local("posit.high", bitcast(ScalarType.F64, high))),
            kb.get(kb.local("posit.midpoint", bitcast(ScalarType.F64, midpoint))), kb.get(kb.local("posit.low.odd", lastBitOdd)));
    }

    /** The rounded posit, or 0 for q = 0 and the end for q at or beyond one (q F64, the unclamped quotient). */
    private Expr clamped(Expr q, Expr rounded) {
        Expr ends = select(ge(q, f64(posit.largest())), f64(posit.largest()), f64(posit.smallest()));
        return select(eq(q, f64(0)), f64(0), select(or(ge(q, f64(posit.largest())), le(q, f64(posit.smallest()))), ends, rounded));
    }

    /**
     * x mod 2^j of integers x >= 0 and 0 <= j <= 62 (I64), by shifts and a multiply: a remainder by a divisor known
     * only at run time is an integer division, which no vector unit has, so each lane would divide on its own.
     */
    private static Expr remainder(Expr x, Expr j) { return sub(x, mul(shiftRight(x, j), shiftedOne(j))); }

    /** 1 << j of an integer 0 <= j <= 62 (I64): 2^62 shifted right. */
    private static Expr shiftedOne(Expr j) { return shiftRight(idx(1L << 62), sub(idx(62), j)); }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
