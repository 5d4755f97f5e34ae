package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.ValueGrid;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * One dot product's blocks summed exactly across the whole reduction (--accumulate exact), then rounded once to
 * float32. Each block adds its exact scaled sums (doubles: a block's exact sum, or for FP8 E5M2 its two exact
 * parts, times the product of its two scales, exact as {@link ExactBlockSum} says) to a fixed-point number of
 * 64-bit limbs of 26 bits each, whose lowest bit is 2^(2 s + 2 x), s and x the exponents of the smallest element
 * and smallest scale (every scaled block sum is a multiple of it) and whose range reaches the largest scaled block
 * sum, n 2^(2 emax + 2) 2^(2 (scale's emax + 1)), with two limbs more: 52 bits of headroom, carries of up to 2^52
 * blocks. MXFP8 E4M3 under E8M0 spans 2^-272 .. 2^279, 24 limbs. A limb takes up to 2^37 blocks' digits before
 * its carries are passed on.
 * <p>
 * A double d enters digit by digit from the top: its quotient by the limb's weight, truncated (|q| < 2^26, as the
 * digits above are already taken off), is added to the limb and taken off d, all exact. The weights are the limbs'
 * own powers of two, 2^lowest for the lowest limb (counted from 1 there, the top limb of a bfloat16 element's scaled
 * sums under E8M0, 2^-520 .. 2^546 in 42 limbs, would weigh 2^1066, beyond a double); elements and scales being
 * float32s, they stay within 2^-600 .. 2^600, normal doubles.
 * The rounding passes the carries up (floor division, so every limb but the top one ends in 0 .. 2^26 - 1, the top one holding the sign),
 * negates a negative number and passes them again, then takes the highest nonzero limb and the one below it,
 * T = hi 2^26 + lo (27 to 52 bits, exact in a double), jams any nonzero limb below them into T's last bit (T
 * rounded to odd at its precision, at least 26 = 24 + 2 bits), and rounds T times its weight, a double, to float32:
 * a number rounded to odd with 2 bits more than float32 rounds to float32 as the exact value does (Boldo and
 * Melquiond 2008, as for {@link ExactBlockSum}). A NaN block makes the result NaN.
 * <p>
 * Posit blocks whose sums outgrow a double, and the blocks of wide elements (bfloat16, float16) whose sums do, use
 * the same limbs twice: {@link #ofProducts} sums one block's products
 * of elements (from 2^(2 s), unscaled), whose sum rounded to odd is then scaled and rounded to float32 (under
 * scales that are not powers of two, which would not keep it rounded to odd, a {@link #zero} total sums the
 * block's products times its scales instead); and under
 * --accumulate exact each product times its block's scales enters the dot product's total, a multiple of
 * 2^(2 s + 2 x) below a block sum's bound as well.
 */
final class ExactBlockTotal {
    private static final int LIMB_BITS = 26;
    private static final double LIMB = 0x1p26;
    /** Limbs beyond the range of one scaled block sum, for the carries of many. */
    private static final int HEADROOM_LIMBS = 2;

    private final KernelBuilder kb;
    private final Buffer limbs;
    private final int count;
    private final int lowest;
    private final Local nan;

    private ExactBlockTotal(KernelBuilder kb, Buffer limbs, int count, int lowest, Local nan) {
        this.kb = kb;
        this.limbs = limbs;
        this.count = count;
        this.lowest = lowest;
        this.nan = nan;
    }

    /** A total of 0 for scaled block sums (or scaled products), its limbs a scratch buffer zeroed where this is emitted. */
    static ExactBlockTotal zero(KernelBuilder kb, BlockFormat format) {
        ValueGrid scale = format.scale();
        return zero(kb, lowestOfProducts(format) + 2 * scale.smallestExponent(), highestOfProducts(format) + 2 * (scale.maxExponent() + 1));
    }

    /**
     * A total of 0 for one block's products of elements, unscaled (posit blocks, {@link ExactBlockSum}): from
     * 2^(2 s) to n 2^(2 emax + 2) and the headroom.
     */
    static ExactBlockTotal ofProducts(KernelBuilder kb, BlockFormat format) {
        return zero(kb, lowestOfProducts(format), highestOfProducts(format));
    }

    private static int lowestOfProducts(BlockFormat format) { return 2 * format.element().smallestExponent(); }

    private static int highestOfProducts(BlockFormat format) {
        int countBits = 64 - Long.numberOfLeadingZeros(format.blockSize() - 1L);
        return countBits + 2 * format.element().maxExponent() + 2;
    }

    private static ExactBlockTotal zero(KernelBuilder kb, int lowest, int highest) {
        int count = Math.ceilDiv(highest - lowest, LIMB_BITS) + HEADROOM_LIMBS;
        Buffer limbs = kb.scratch("limbs", ScalarType.I64, new long[] {count});
        kb.loop(count, i -> kb.store(limbs, i, idx(0)));
        return new ExactBlockTotal(kb, limbs, count, lowest, kb.local("nan", bool(false)));
    }

    /** Adds d (F64), an exact scaled block sum: a multiple of 2^lowest within the range, or NaN. */
    void include(Expr d) {
        Local value = kb.local("scaled", d);
        kb.assign(nan, or(kb.get(nan), ne(kb.get(value), kb.get(value))));
        Local rest = kb.local("rest", select(ne(kb.get(value), kb.get(value)), f64(0), kb.get(value)));
        Local weight = kb.local("weight", f64(Math.scalb(1.0, lowest + LIMB_BITS * (count - 1))));
        kb.loop(count, step -> {
            Expr limb = sub(idx(count - 1), step);
            Local digit = kb.local("digit", cast(ScalarType.F64, cast(ScalarType.I64, div(kb.get(rest), kb.get(weight)))));
            kb.store(limbs, limb, add(kb.load(limbs, limb), cast(ScalarType.I64, kb.get(digit))));
            kb.assign(rest, sub(kb.get(rest), mul(kb.get(digit), kb.get(weight))));
            kb.assign(weight, mul(kb.get(weight), f64(1 / LIMB)));
        });
    }

    /** The total rounded once to float32 (F32). */
    Expr rounded() { return cast(ScalarType.F32, roundedToOdd()); }

    /**
     * The total rounded to odd at 27 to 52 bits (F64), NaN when a NaN was added: times a power of two that keeps
     * it a normal double, it rounds to float32 as the exact total so scaled does.
     */
    Expr roundedToOdd() {
        carry();
        Local negative = kb.local("negative", lt(kb.load(limbs, idx(count - 1)), idx(0)));
        kb.loop(count, i -> kb.store(limbs, i, select(kb.get(negative), neg(kb.load(limbs, i)), kb.load(limbs, i))));
        carry();
        Local hi = kb.local("hi", idx(0)), lo = kb.local("lo", idx(0)), previous = kb.local("previous", idx(0));
        Local sticky = kb.local("sticky", bool(false)), belowPrevious = kb.local("below.previous", bool(false));
        Local weightBelow = kb.local("weight.below", f64(0)), weightOfPrevious = kb.local("weight.previous", f64(Math.scalb(1.0, lowest - LIMB_BITS)));
        kb.loop(count, i -> {
            Local limb = kb.local("limb", kb.load(limbs, i));
            Local nonzero = kb.local("nonzero", ne(kb.get(limb), idx(0)));
            kb.assign(hi, select(kb.get(nonzero), kb.get(limb), kb.get(hi)));
            kb.assign(lo, select(kb.get(nonzero), kb.get(previous), kb.get(lo)));
            kb.assign(sticky, select(kb.get(nonzero), kb.get(belowPrevious), kb.get(sticky)));
            kb.assign(weightBelow, select(kb.get(nonzero), kb.get(weightOfPrevious), kb.get(weightBelow)));
            kb.assign(belowPrevious, or(kb.get(belowPrevious), ne(kb.get(previous), idx(0))));
            kb.assign(previous, kb.get(limb));
            kb.assign(weightOfPrevious, mul(kb.get(weightOfPrevious), f64(LIMB)));
        });
        Local top = kb.local("top", add(mul(kb.get(hi), idx((long) LIMB)), kb.get(lo)));
        Expr odd = select(and(kb.get(sticky), eq(rem(kb.get(top), idx(2)), idx(0))), add(kb.get(top), idx(1)), kb.get(top));
        Local magnitude = kb.local("magnitude", mul(cast(ScalarType.F64, odd), kb.get(weightBelow)));
        Expr signed = select(kb.get(negative), neg(kb.get(magnitude)), kb.get(magnitude));
        return select(kb.get(nan), f64(Double.NaN), signed);
    }

    /** Passes every limb's carry to the next (floor division by 2^26), the top limb keeping what reaches it. */
    private void carry() {
        Local carry = kb.local("carry", idx(0));
        kb.loop(count - 1, i -> {
            Local v = kb.local("with.carry", add(kb.load(limbs, i), kb.get(carry)));
            Expr truncated = div(kb.get(v), idx((long) LIMB));
            Local c = kb.local("carry.out", select(lt(rem(kb.get(v), idx((long) LIMB)), idx(0)), sub(truncated, idx(1)), truncated));
            kb.store(limbs, i, sub(kb.get(v), mul(kb.get(c), idx((long) LIMB))));
            kb.assign(carry, kb.get(c));
        });
        kb.store(limbs, idx(count - 1), add(kb.load(limbs, idx(count - 1)), kb.get(carry)));
    }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
