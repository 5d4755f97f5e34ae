package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.ScaleRule;
import dev.byodt.compiler.dtype.ValueGrid;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ByodtException;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * The loop nest that quantizes an activation tensor in blocks at run time, giving the same elements and scales
 * as {@link BlockFormat#quantize} (exact rational arithmetic) bit for bit, stored as float32s. It is written in
 * double arithmetic that never rounds:
 * <ul>
 * <li>2^floor(log2 a) of a positive double a is Veltkamp's split of a at one bit: hi = g - (g - a) with
 *     g = a * (2^52 + 1) is a one-bit value nearest a (Dekker 1971; Boldo 2006), so 2^floor(log2 a) is hi, or
 *     hi / 2 when hi went above a. No operation overflows: a stays far inside double's range.</li>
 * <li>The floor rule's scale X = 2^(floor(log2 amax) - emax), clamped to the scale datatype's powers of two,
 *     is a power of two, so |v| / X is exact.</li>
 * <li>Rounding q = |v| / X to the element grid: its step is s = max(2^floor(log2 q), 2^minExponent) *
 *     2^-fractionBits (a power of two, so q / s is exact), and q / s < 2^(fractionBits + 2) is rounded to an
 *     integer, ties to even, by adding and subtracting 2^52 (the doubles from 2^52 to 2^53 are the integers).</li>
 * <li>The rounded magnitude is clamped to the largest element; {@link #unsupported} admits only formats whose
 *     elements and scales are all float32s, so the stored float32s are the element and the scale exactly.</li>
 * </ul>
 * Special blocks as the exact quantizer: a NaN or infinity anywhere makes every value of the block NaN; zeros keep
 * their signs (1 / -0 is -infinity tells -0 apart).
 */
final class ActivationQuantizer {
    private static final double TWO_52 = 0x1p52;
    private static final double FLOAT32_LARGEST = Float.MAX_VALUE;

    private final BlockFormat format;

    ActivationQuantizer(BlockFormat format) {
        this.format = format;
        String unsupported = unsupported(format);
        if (unsupported != null) throw new ByodtException("block datatype " + format.name() + ": " + unsupported);
    }

    /** Why activations cannot be quantized at run time in {@code format}, or null when they can. */
    static String unsupported(BlockFormat format) {
        if (format.name().rule() != ScaleRule.FLOOR || format.name().tensorScale()) {
            return "activations are quantized at run time under the floor rule without a tensor scale only (the OCP MX formats) for now";
        }
        ValueGrid element = format.element(), scale = format.scale();
        if (scale.fractionBits() != 0) return "the scale " + format.name().scale() + " is not a power of two";
        boolean fitsFloat32 = element.fractionBits() <= 23 && element.smallestExponent() >= -149 && scale.smallestExponent() >= -149
            && scale.maxExponent() <= 127;
        return fitsFloat32 ? null : "its elements or scales are not all float32s (element " + format.name().element() + ", scale "
            + format.name().scale() + ")";
    }

    /**
     * Quantizes {@code source} (REAL, the vector datatype's values, read as float32) in blocks along one axis,
     * the tensor seen as [outer, length, inner] and blocks of the block size (the last one shorter when it does
     * not divide length) along the middle axis: each value's element into {@code elements} (F32, the same shape)
     * and each block's scale into {@code scales} (F32, [outer, blocks, inner]). A block holding a NaN or an
     * infinity gets NaN elements and a NaN scale.
     */
    void emit(KernelBuilder kb, Buffer source, Buffer elements, Buffer scales, long outer, long length, long inner) {
        long size = format.blockSize();
        long blocks = (length + size - 1) / size;
        kb.loops(new long[] {outer, inner, blocks}, at -> {
            Expr first = add(add(mul(at[0], length * inner), at[1]), mul(mul(at[2], size), inner));
            Expr count = min(idx(size), sub(idx(length), mul(at[2], size)));
            Local amax = kb.local("amax", f64(0));
            kb.loop(count, j -> kb.assign(amax, max(kb.get(amax), abs(value(kb, source, first, j, inner)))));
            Expr special = not(le(kb.get(amax), f64(FLOAT32_LARGEST)));
            Local scale = kb.local("scale", select(special, f64(Double.NaN), scale(kb.get(amax))));
            kb.store(scales, add(mul(add(mul(at[0], blocks), at[2]), inner), at[1]), cast(ScalarType.F32, kb.get(scale)));
            kb.loop(count, j -> {
                Expr v = value(kb, source, first, j, inner);
                Expr element = select(special, f64(Double.NaN), signed(element(div(abs(v), kb.get(scale))), v));
                kb.store(elements, add(first, mul(j, inner)), cast(ScalarType.F32, element));
            });
        });
    }

    private static Expr value(KernelBuilder kb, Buffer source, Expr first, Expr j, long inner) {
        return cast(ScalarType.F64, cast(ScalarType.F32, kb.load(source, add(first, mul(j, inner)))));
    }

    /** The floor rule's power of two for the block maximum (any value for an all-zero block, whose elements are zeros). */
    private Expr scale(Expr amax) {
        Expr positive = select(gt(amax, f64(0)), amax, f64(1));
        Expr power = mul(powerOfTwoBelow(positive), f64(Math.scalb(1.0, -format.element().maxExponent())));
        return min(max(power, f64(format.scale().smallest())), f64(format.scale().largest()));
    }

    /** The nearest element magnitude to q >= 0, ties to the even multiple of the step, clamped to the largest. */
    private Expr element(Expr q) {
        ValueGrid grid = format.element();
        Expr binade = powerOfTwoBelow(select(gt(q, f64(0)), q, f64(1)));
        Expr step = mul(max(binade, f64(Math.scalb(1.0, grid.minExponent()))), f64(Math.scalb(1.0, -grid.fractionBits())));
        Expr multiple = sub(add(div(q, step), f64(TWO_52)), f64(TWO_52));
        return min(mul(multiple, step), f64(grid.largest()));
    }

    /** magnitude with the sign of v, -0 included. */
    private static Expr signed(Expr magnitude, Expr v) {
        Expr negative = or(lt(v, f64(0)), lt(div(f64(1), v), f64(0)));
        return select(negative, neg(magnitude), magnitude);
    }

    /** 2^floor(log2 a) of a positive double, by Veltkamp's split (see the class comment). */
    static Expr powerOfTwoBelow(Expr a) {
        Expr g = mul(a, f64(TWO_52 + 1));
        Expr hi = sub(g, sub(g, a));
        return select(gt(hi, a), mul(hi, f64(0.5)), hi);
    }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
