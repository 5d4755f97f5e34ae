package dev.byodt.compiler.dtype.reference;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A fused dot-product unit (--accumulate fused:F=..,G=..) written from its definition in exact rationals, as
 * the reference fused_dot.c is tested against. The products a[k] b[k] are taken in order, in groups of G (the
 * last may be shorter). A group's terms are the running float32 accumulator c and its exact products; E is the
 * largest floor(log2 |t|) of the nonzero terms; each term becomes an integer number of units 2^(E-F), toward
 * zero (rz) or to nearest, ties to even (rne); the integers are added; the sum times the unit, rounded to float32
 * (nearest, ties to even, subnormals, overflow to infinity), is the new c. A zero sum is +0. A group with an
 * infinite or NaN term (an operand NaN or infinite, or c) gives the IEEE sum of those terms instead.
 */
public final class FusedDotReference {
    private final int fractionBits;
    private final int group;
    private final boolean nearestEven;

    public FusedDotReference(int fractionBits, int group, boolean nearestEven) {
        this.fractionBits = fractionBits;
        this.group = group;
        this.nearestEven = nearestEven;
    }

    /** The unit's float32 accumulator after the products a[k] b[k]; the operands are values float32 holds. */
    public float dot(double[] a, double[] b) {
        float c = 0;
        List<Integer> pending = new ArrayList<>();
        for (int k = 0; k < a.length; k++) {
            pending.add(k);
            if (pending.size() == group) {
                c = group(c, pending, a, b);
                pending.clear();
            }
        }
        return pending.isEmpty() ? c : group(c, pending, a, b);
    }

    private float group(float c, List<Integer> ks, double[] a, double[] b) {
        double special = 0;
        boolean anySpecial = !Float.isFinite(c);
        if (anySpecial) special += c;
        for (int k : ks) {
            double product = a[k] * b[k];   // only its class matters here: NaN and infinity as IEEE says
            boolean finiteOperands = Double.isFinite(a[k]) && Double.isFinite(b[k]);
            if (!finiteOperands) {
                special += product;
                anySpecial = true;
            }
        }
        if (anySpecial) return (float) special;
        List<Rational> terms = new ArrayList<>();
        terms.add(Rational.of(c));
        for (int k : ks) terms.add(Rational.of(a[k]).multiply(Rational.of(b[k])));
        Integer top = null;
        for (Rational t : terms) {
            if (t.signum() != 0 && (top == null || t.floorLog2() > top)) top = t.floorLog2();
        }
        if (top == null) return 0f;
        Rational perUnit = Rational.scaled(BigInteger.ONE, fractionBits - top);
        BigInteger units = BigInteger.ZERO;
        for (Rational t : terms) {
            Rational scaled = t.multiply(perUnit);
            units = units.add(nearestEven ? Rounding.nearestEven(scaled) : Rounding.towardZero(scaled));
        }
        return toFloat32(Rational.scaled(units, top - fractionBits));
    }

    /** x rounded to float32: nearest, ties to even, on the grid of its binade (2^-149 below 2^-126); too large is infinite. */
    static float toFloat32(Rational x) {
        if (x.signum() == 0) return 0f;
        int exponent = Math.max(x.abs().floorLog2(), -126);
        BigInteger n = Rounding.nearestEven(x.abs().multiply(Rational.scaled(BigInteger.ONE, 23 - exponent)));
        if (n.bitLength() > 24) {
            n = n.shiftRight(1);
            exponent++;
        }
        float magnitude = exponent > 127 ? Float.POSITIVE_INFINITY : Math.scalb((float) n.intValueExact(), exponent - 23);
        return x.signum() < 0 ? -magnitude : magnitude;
    }
}
