package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.MinifloatCast;
import dev.byodt.runtime.MinifloatFormat;
import dev.byodt.runtime.Tensor;

import java.util.Arrays;

import static dev.byodt.compiler.kernel.Exprs.abs;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.le;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.ne;
import static dev.byodt.compiler.kernel.Exprs.neg;
import static dev.byodt.compiler.kernel.Exprs.or;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * A Cast to an 8- or 4-bit float inside a model: the value, converted to float32 by its datatype, is rounded to
 * the format as {@link MinifloatCast} defines it, and goes on in the datatype. The rounding is a binary search in
 * the format's table of magnitudes ({@link MinifloatCast#magnitudes()}, the table byodt's own conversions search,
 * so both round alike by construction), then ONNX's rules for ties, zeros, overflow and NaN, in float32
 * operations that every target has.
 */
final class MinifloatRounding {
    private MinifloatRounding() {}

    /** x (of any numeric type) rounded to the format; a REAL. */
    static Expr round(KernelBuilder kb, MinifloatCast rounding, Expr x) {
        Local value = kb.local("unrounded", cast(ScalarType.F32, x));
        Expr rounded = rounding.isPowersOfTwo() ? powerOfTwo(kb, rounding, kb.get(value)) : nearest(kb, rounding, kb.get(value));
        return cast(ScalarType.REAL, rounded);
    }

    /**
     * To nearest, ties to the even pattern. The table holds the magnitudes and the overflow boundary after them,
     * padded with infinities, so that the search and the pattern after the one found stay inside it.
     */
    private static Expr nearest(KernelBuilder kb, MinifloatCast rounding, Expr x) {
        MinifloatFormat format = rounding.format();
        double[] magnitudes = rounding.magnitudes();
        int largest = format.largestFinite();
        int size = Integer.highestOneBit(magnitudes.length + 1) * 2;
        Buffer table = table(kb, magnitudes, size, Float.POSITIVE_INFINITY);
        Local magnitude = kb.local("magnitude", min(abs(x), f32(magnitudes[largest + 1])));
        Expr below = search(kb, table, size, kb.get(magnitude));
        Expr a = kb.get(magnitude);
        Expr midpoint = mul(add(kb.load(table, below), kb.load(table, add(below, 1))), f32(0.5));
        Expr up = or(gt(a, midpoint), and(eq(a, midpoint), eq(rem(below, 2), idx(1))));
        Local pattern = kb.local("pattern", add(below, select(up, idx(1), idx(0))));
        Expr k = kb.get(pattern);
        Expr negative = lt(x, f32(0));
        Expr found = kb.load(table, min(k, largest));
        // A zero keeps x's sign (x * 0), except in the FNUZ formats, which have no -0.
        Expr zero = format.specials() == MinifloatFormat.Specials.FNUZ ? f32(0) : mul(x, f32(0));
        Expr finite = select(eq(k, idx(0)), zero, select(negative, neg(found), found));
        Expr overflow = select(negative, f32(-overflowMagnitude(rounding)), f32(overflowMagnitude(rounding)));
        Expr result = select(gt(k, idx(largest)), overflow, finite);
        double nan = format.specials() == MinifloatFormat.Specials.NONE ? -0.0 : Double.NaN;
        return select(ne(x, x), f32(nan), result);
    }

    /** What a value beyond the largest finite one becomes: that value, infinity, or NaN (whose sign is moot). */
    private static double overflowMagnitude(MinifloatCast rounding) {
        MinifloatFormat format = rounding.format();
        if (rounding.saturates()) return format.value(format.largestFinite());
        return format.specials() == MinifloatFormat.Specials.IEEE ? Double.POSITIVE_INFINITY : Double.NaN;
    }

    /**
     * float8e8m0: the power of two at or below |x| (the table's 2^-127 .. 2^127, then NaN, which no search
     * reaches), raised by one as the rounding mode says; float32's subnormals have their own rule.
     */
    private static Expr powerOfTwo(KernelBuilder kb, MinifloatCast rounding, Expr x) {
        int largest = rounding.format().largestFinite();
        double[] powers = Arrays.copyOf(rounding.magnitudes(), largest + 1);
        Buffer table = table(kb, powers, largest + 2, Float.NaN);
        Local magnitude = kb.local("magnitude", abs(x));
        Expr a = kb.get(magnitude);
        Local power = kb.local("power", search(kb, table, largest + 2, a));
        Expr k = kb.get(power);
        Expr one = idx(1);
        Expr subnormal = lt(a, f32(Float.MIN_NORMAL));
        Expr raised = switch (rounding.e8m0Rounding()) {
            case UP -> select(subnormal, select(gt(a, f32(0)), one, idx(0)), add(k, select(gt(a, kb.load(table, k)), one, idx(0))));
            case DOWN -> k;
            case NEAREST -> select(subnormal, select(gt(a, f32(Math.scalb(1f, -127))), one, idx(0)),
                add(k, select(ge(a, mul(kb.load(table, k), f32(1.5))), one, idx(0))));
        };
        Expr pattern = rounding.saturates() ? min(raised, largest) : raised;
        Expr special = or(ne(x, x), eq(a, f32(Double.POSITIVE_INFINITY)));
        return select(special, f32(Double.NaN), kb.load(table, pattern));
    }

    /** The largest index below {@code size} (a power of two) whose entry is at most a, or 0; NaN finds 0. */
    private static Expr search(KernelBuilder kb, Buffer table, int size, Expr a) {
        Local found = kb.local("found", idx(0));
        for (int step = size / 2; step >= 1; step /= 2) {
            Expr candidate = add(kb.get(found), step);
            kb.assign(found, select(le(kb.load(table, candidate), a), candidate, kb.get(found)));
        }
        return kb.get(found);
    }

    /** A float32 table of the values, then {@code padding} up to {@code size} entries. */
    private static Buffer table(KernelBuilder kb, double[] values, int size, float padding) {
        Tensor t = Tensor.zeros(ElementType.FLOAT32, new long[] {size});
        for (int i = 0; i < size; i++) t.setFloat(i, i < values.length ? (float) values[i] : padding);
        return kb.constant("minifloat", ScalarType.F32, t);
    }

    private static Expr f32(double value) { return constant(ScalarType.F32, value); }
}
