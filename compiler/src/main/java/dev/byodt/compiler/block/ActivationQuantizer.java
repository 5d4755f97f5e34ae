package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.ElementGrid;
import dev.byodt.compiler.dtype.PositGrid;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.StochasticRounding;
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
 *     integer, ties to even, by adding and subtracting 2^52 (the doubles from 2^52 to 2^53 are the integers).
 *     In the format's other element rounding modes that integer less one where it went above q / s is the
 *     floor, and q / s less the floor the exact fraction that decides the mode's step up; stochastically, that
 *     fraction's first bits (times 2^bits, exact, then floored) and the random bits of the element's counter
 *     ({@link BlockFormat#counterKey} of the node and the source tensor, plus the element's index in it, moved by
 *     the call's first item, {@link dev.byodt.compiler.dtype.CallItems#offset}, when the format has the call's items).</li>
 * <li>Under a divisor X t that is not a power of two (a float32 tensor scale t, or a scale X chosen onto a grid of
 *     several significant bits: nearest and rceil onto UE4M3), q = |v| / (X t) (X t exact: at most 4 + 24 bits) is
 *     rounded once in double where that decides as the exact quotient ({@link #doubleQuotientDecides}: NVFP4), else
 *     taken rounded to odd ({@link RoundingToOdd#quotient}): on the same side as the exact quotient of every number of
 *     at most 52 significant bits, and on one only where the exact quotient is. The points where rounding q decides
 *     (the grid's points, their midpoints, or with --sr-bits b the b-bit fractions of a step) have at most M + b + 1
 *     bits, at most 47 (fxp32 elements, 30 fraction bits, with 16 random bits), so every decision above is the exact
 *     quotient's: its binade (a power of two is a point), its floor in steps and the fraction beyond it.</li>
 * <li>A posit element's q, exact where the divisor is a power of two and else rounded to odd, is rounded from its
 *     binade and regime ({@link PositElementRounding}): the points it is compared with have at most 52 bits too.</li>
 * <li>The rounded magnitude is clamped to the largest element; {@link #unsupported} admits only formats whose
 *     scales are all float32s and whose elements {@link ElementStorage} keeps exactly (float32s, posits as doubles, or
 *     integers of at most 31 bits times the smallest element), so what is stored is the element and the scale exactly.</li>
 * </ul>
 * Special blocks as the exact quantizer: a NaN or infinity anywhere makes every value of the block NaN; zeros keep
 * their signs (a zero's element is the zero itself).
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
        if (ElementStorage.of(format).isEmpty()) {
            return "its element " + format.name().element() + " has values neither float32 nor integers of at most "
                + ElementStorage.MOST_INTEGER_BITS + " bits times its smallest value hold, the ways the quantizer and dot products keep elements "
                + "other than posits (doubles)";
        }
        return format.scale().float32HoldsEvery() ? null : "its scale " + format.name().scale() + " has values float32 cannot hold, and the "
            + "quantizer and dot products keep scales as float32s";
    }

    /**
     * Quantizes {@code source} (REAL, the vector datatype's values, read as float32) in blocks along one axis,
     * the tensor seen as [outer, length, inner] and blocks of the block size (the last one shorter when it does
     * not divide length) along the middle axis: each value's element into {@code elements} (as {@link ElementStorage}
     * keeps them, the same shape)
     * and each block's scale into {@code scales} (F32, [outer, blocks, inner]); for a format with a tensor
     * scale, that into {@code tensorScale} (F32, one value), else null. A block holding a NaN or an infinity gets
     * NaN elements and a NaN scale.
     */
    void emit(KernelBuilder kb, Buffer source, Buffer elements, Buffer scales, Buffer tensorScale, long outer, long length, long inner) {
        long size = format.blockSize();
        long blocks = (length + size - 1) / size;
        Expr t = f64(1);
        if (tensorScale != null) {
            kb.store(tensorScale, idx(0), cast(ScalarType.F32, tensorScale(kb, source, outer * length * inner)));
            t = cast(ScalarType.F64, kb.load(tensorScale, idx(0)));
        }
        Expr tensor = t;
        ElementStorage storage = QuantizedOperand.storage(format);
        long key = format.counterKey(kb.name(), source.name());
        Expr firstItem = format.items().map(items -> items.offset(idx(outer * length * inner))).orElse(idx(0));
        Expr counterBase = add(firstItem, new Expr.IntConst(ScalarType.I64, key));
        if (inner == 1) {
            // Blocks along the contiguous axis: each block's maximum and divisor stay in registers, where the scratch
            // rows below would put a load and a store in every step of the maximum's loop.
            kb.loops(new long[] {outer, blocks}, at -> {
                Expr first = add(mul(at[0], length), mul(at[1], size));
                Local amaxBits = kb.local("amax.bits", i32(0));
                kb.loop(blockLength(at[1], length), j -> kb.assign(amaxBits, max(kb.get(amaxBits), magnitudeBits(kb, source, add(first, j)))));
                Local divisor = kb.local("divisor", divisor(kb, kb.get(amaxBits), tensor, scales, add(mul(at[0], blocks), at[1])));
                kb.loop(blockLength(at[1], length), j -> quantize(kb, source, elements, add(first, j), kb.get(divisor), counterBase, storage));
            });
            return;
        }
        // Blocks down a strided axis (a Conv's channels at each position, B's columns of a MatMul): every loop runs along
        // the contiguous inner axis, the blocks of a row of it side by side, so that each vectorizes without gathers.
        Buffer maxima = kb.scratch("block.amax.bits", ScalarType.I32, new long[] {inner});
        Buffer divisors = kb.scratch("block.divisors", ScalarType.F64, new long[] {inner});
        kb.loops(new long[] {outer, blocks}, at -> {
            Expr first = add(mul(at[0], length * inner), mul(mul(at[1], size), inner));
            kb.loop(inner, i -> kb.store(maxima, i, i32(0)));
            kb.loop(blockLength(at[1], length), j -> kb.loop(inner, i ->
                kb.store(maxima, i, max(kb.load(maxima, i), magnitudeBits(kb, source, add(add(first, mul(j, inner)), i))))));
            kb.loop(inner, i -> kb.store(divisors, i, divisor(kb, kb.load(maxima, i), tensor, scales, add(mul(add(mul(at[0], blocks), at[1]), inner), i))));
            kb.loop(blockLength(at[1], length), j -> kb.loop(inner, i ->
                quantize(kb, source, elements, add(add(first, mul(j, inner)), i), kb.load(divisors, i), counterBase, storage)));
        });
    }

    /** The values in block b of an axis of that length: the block size, or fewer in the last block. */
    private Expr blockLength(Expr b, long length) {
        return min(idx(format.blockSize()), sub(idx(length), mul(b, format.blockSize())));
    }

    /**
     * Stores the scale of a block whose largest magnitude has the float32 pattern {@code amaxBits} (NaN for a block
     * holding a NaN or an infinity) into scales[scaleIndex], and gives what its values are divided by: X t, or its
     * reciprocal where that is a power of two ({@link #divisorIsAPowerOfTwo}); NaN for such a block.
     */
    private Expr divisor(KernelBuilder kb, Expr amaxBits, Expr tensor, Buffer scales, Expr scaleIndex) {
        // A NaN's pattern is above infinity's, so amax is NaN where the block holds one.
        Local amax = kb.local("amax", magnitude(amaxBits));
        Expr special = not(le(kb.get(amax), f64(FLOAT32_LARGEST)));
        Local scale = kb.local("scale", select(special, f64(Double.NaN), scale(kb, kb.get(amax), tensor)));
        kb.store(scales, scaleIndex, cast(ScalarType.F32, kb.get(scale)));
        // X * T is exact: at most 24 + 24 bits.
        Expr divisor = mul(kb.get(scale), tensor);
        // A power of two's reciprocal is exact, and so is each magnitude times it: the quotients without a division each.
        return divisorIsAPowerOfTwo() ? div(f64(1), divisor) : divisor;
    }

    /** Quantizes source[index] into elements[index] under its block's {@link #divisor} (NaN: the element is NaN). */
    private void quantize(KernelBuilder kb, Buffer source, Buffer elements, Expr index, Expr divisor, Expr counterBase, ElementStorage storage) {
        Expr v = cast(ScalarType.F64, cast(ScalarType.F32, kb.load(source, index)));
        Expr quotient = divisorIsAPowerOfTwo() ? mul(abs(v), divisor)
            : doubleQuotientDecides() ? div(abs(v), divisor) : RoundingToOdd.quotient(kb, abs(v), divisor);
        Expr element = select(ne(divisor, divisor), f64(Double.NaN), signed(element(kb, v, quotient, add(index, counterBase)), v));
        kb.store(elements, index, storage.stored(element));
    }

    /**
     * The tensor scale (as a double holding a float32): the largest finite magnitude over
     * {@link BlockFormat#tensorScaleDivisor}, a product exact in double, rounded to float32 (the double quotient of two float32-sized
     * values rounded to float32 is the exact quotient rounded once); 1 when that is 0.
     */
    private Expr tensorScale(KernelBuilder kb, Buffer source, long size) {
        Local amaxBits = kb.local("tensor.amax.bits", i32(0));
        kb.loop(size, i -> {
            Expr bits = magnitudeBits(kb, source, i);
            Expr finite = le(bits, i32(Float.floatToRawIntBits(Float.MAX_VALUE)));
            kb.assign(amaxBits, max(kb.get(amaxBits), select(finite, bits, i32(0))));
        });
        Expr quotient = cast(ScalarType.F64, cast(ScalarType.F32, div(magnitude(kb.get(amaxBits)), f64(format.tensorScaleDivisor()))));
        return select(gt(quotient, f64(0)), quotient, f64(1));
    }

    /**
     * The bit pattern of source[index]'s float32 magnitude, an I32 that orders as the magnitude does (NaN patterns
     * above infinity's): the block maxima are integer maxima, which vectorize, where a maximum of doubles that keeps
     * NaN is a compare and a select a step, which does not.
     */
    private static Expr magnitudeBits(KernelBuilder kb, Buffer source, Expr index) {
        return bitcast(ScalarType.I32, abs(cast(ScalarType.F32, kb.load(source, index))));
    }

    /** The magnitude whose float32 pattern {@link #magnitudeBits} gave, as a double. */
    private static Expr magnitude(Expr bits) { return cast(ScalarType.F64, bitcast(ScalarType.F32, bits)); }

    /**
     * The block's scale for its largest magnitude under tensor scale t (the smallest scale for an all-zero
     * block, as the exact quantizer gives). Every rule reads a = amax / t, exact without a tensor scale and else
     * rounded to odd ({@link RoundingToOdd#quotient}), which decides as the exact quotient against every point below of
     * at most 52 bits. The power-of-two rules start from p = 2^floor(log2 a) (a power of two is such a point) and
     * compare a with p or X = p 2^-emax times a value of few bits: floor takes X; ceil 2X unless a is p; even 2X when
     * a >= p (2 - 2^-(M+1)), where rounding to M + 1 bits carries into the next binade (M + 2 bits: 32 for fxp32);
     * midmax 2X when a / X passes the midpoint above the largest element (never 4X: that midpoint is below
     * 2^(emax+1)). Each is then clamped to the scale datatype's powers of two. nearest and rceil round a / largest
     * element, again rounded to odd, onto the scale grid, to nearest or up: its points and midpoints have scale
     * fraction bits + 2, and times the largest element (at most 31 bits) they stay points a decides against, so the
     * twice rounded quotient decides as the exact one.
     */
    private Expr scale(KernelBuilder kb, Expr amax, Expr t) {
        ElementGrid element = format.element();
        ValueGrid scale = format.scale();
        Expr positive = select(gt(amax, f64(0)), amax, f64(1));
        Local a = kb.local("amax.over.t", format.name().tensorScale() ? RoundingToOdd.quotient(kb, positive, t) : positive);
        Expr p = powerOfTwoBelow(kb.get(a));
        Expr x = mul(p, f64(Math.scalb(1.0, -element.maxExponent())));
        Expr chosen = switch (format.name().rule()) {
            case NEAREST -> larger(nearest(gridQuotient(kb, positive, t, a), scale), f64(scale.smallest()));
            case RCEIL -> up(gridQuotient(kb, positive, t, a), scale);
            case FLOOR -> powerOfTwoScale(x);
            case CEIL -> powerOfTwoScale(select(eq(kb.get(a), p), x, mul(x, f64(2))));
            case EVEN -> powerOfTwoScale(select(ge(kb.get(a), mul(p, f64(2 - Math.scalb(1.0, -element.largestBinadeFractionBits() - 1)))), mul(x, f64(2)), x));
            case MIDMAX -> powerOfTwoScale(select(gt(kb.get(a), mul(x, f64(element.midpointAboveLargest()))), mul(x, f64(2)), x));
        };
        return select(gt(amax, f64(0)), chosen, f64(scale.smallest()));
    }

    /**
     * amax / (t * largest element), which the rules onto the scale grid round, as one double division where that
     * decides as the exact quotient, else rounded to odd from a = amax / t. The division is of a float32 by a value
     * of 24 + (Me + 1) bits (Me the fraction bits of the largest element's binade; t * largest is exact), and the
     * grid's points and midpoints have Ms + 2 bits (Ms the scale's fraction bits): a float32 that is not t * largest
     * times such a point differs from it by more than 2^-(28 + Me + Ms) of it, coarser than the double quotient's
     * 2^-53 while Me + Ms <= 22 (NVFP4: 4), so the rounded quotient is on the same side of every point and midpoint
     * as the exact one, and on one exactly when it is. Without a tensor scale the products of the largest element
     * and the points have Me + Ms + 3 bits and amax 24, which holds while Me + Ms + 3 <= 50. One division costs a
     * fraction of the two quotients rounded to odd: NVFP4's matrix product took 3.2 times float32's time with them,
     * 2.1 without.
     */
    private Expr gridQuotient(KernelBuilder kb, Expr positive, Expr t, Local a) {
        ElementGrid element = format.element();
        int fractionBits = element.largestBinadeFractionBits() + format.scale().fractionBits();
        boolean oneDivisionDecides = format.name().tensorScale() ? fractionBits <= 22 : fractionBits + 3 <= 50;
        if (oneDivisionDecides) return div(positive, mul(t, f64(element.largest())));
        return RoundingToOdd.quotient(kb, kb.get(a), f64(element.largest()));
    }

    /** A power of two clamped to those the scale datatype holds. */
    private Expr powerOfTwoScale(Expr power) {
        ValueGrid scale = format.scale();
        return smaller(larger(power, f64(Math.scalb(1.0, scale.smallestExponent()))), f64(Math.scalb(1.0, scale.maxExponent())));
    }

    /**
     * The smallest grid magnitude not below q > 0, clamped to the largest: q / step is exact (see {@link #nearest}),
     * rounded to an integer by adding and subtracting 2^52, then one step up where that went below.
     */
    private static Expr up(Expr q, ValueGrid grid) {
        Expr step = step(q, grid);
        Expr steps = div(q, step);
        Expr nearest = sub(add(steps, f64(TWO_52)), f64(TWO_52));
        return smaller(mul(select(lt(nearest, steps), add(nearest, f64(1)), nearest), step), f64(grid.largest()));
    }

    /**
     * The nearest grid magnitude to q >= 0, ties to the even multiple of the step, clamped to the largest. q is exact,
     * a double quotient that decides as the exact one, or rounded to odd from it (see the class comment).
     */
    private static Expr nearest(Expr q, ValueGrid grid) {
        Expr step = step(q, grid);
        return smaller(mul(nearestInteger(div(q, step)), step), f64(grid.largest()));
    }

    /** The grid's spacing at q >= 0: 2^(floor(log2 q) - fraction bits), or the subnormals' below the smallest binade. */
    private static Expr step(Expr q, ValueGrid grid) {
        Expr binade = powerOfTwoBelow(select(gt(q, f64(0)), q, f64(1)));
        return mul(larger(binade, f64(Math.scalb(1.0, grid.minExponent()))), f64(Math.scalb(1.0, -grid.fractionBits())));
    }

    /** The integer nearest x (0 <= x < 2^52), ties to even: x + 2^52 - 2^52. */
    private static Expr nearestInteger(Expr x) { return sub(add(x, f64(TWO_52)), f64(TWO_52)); }

    /**
     * The element magnitude of q = |v| / (X t) >= 0 ({@code quotient}, exact or rounded to odd as the class comment
     * says) in the format's element rounding, clamped to the largest: to the nearest, or from the floor of q / s up by
     * one step where the mode's direction for v's sign says so (q / s is exact as for nearest, so its floor and
     * fraction are too); a posit's by {@link PositElementRounding}.
     */
    private Expr element(KernelBuilder kb, Expr v, Expr quotient, Expr counter) {
        RoundingMode mode = format.elementRounding();
        Local q = kb.local("q", quotient);
        if (format.element() instanceof PositGrid posit) {
            PositElementRounding rounding = new PositElementRounding(kb, posit);
            return switch (mode) {
                case NEAREST_EVEN -> rounding.round(kb.get(q), ValueGrid.Direction.NEAREST_EVEN);
                case STOCHASTIC -> rounding.roundStochastically(kb.get(q), StochasticRounding.randomBits(counter, format.srBits()), format.srBits());
                default -> select(lt(v, f64(0)), rounding.round(kb.get(q), ValueGrid.Direction.of(mode, true)),
                    rounding.round(kb.get(q), ValueGrid.Direction.of(mode, false)));
            };
        }
        ValueGrid grid = (ValueGrid) format.element();
        if (mode == RoundingMode.NEAREST_EVEN) return nearest(kb.get(q), grid);
        Expr step = step(kb.get(q), grid), steps = div(kb.get(q), step);
        Expr floor = floor(steps);
        Expr fraction = sub(steps, floor);
        if (mode == RoundingMode.STOCHASTIC) {
            // fraction < 1 has at most 52 bits below the point, so times 2^bits it is exact, and below 2^16.
            Expr cut = floor(mul(fraction, f64(Math.scalb(1.0, format.srBits()))));
            Expr random = cast(ScalarType.F64, StochasticRounding.randomBits(counter, format.srBits()));
            Expr up = ge(add(cut, random), f64(Math.scalb(1.0, format.srBits())));
            return smaller(mul(add(floor, select(up, f64(1), f64(0))), step), f64(grid.largest()));
        }
        Expr down = smaller(mul(add(floor, select(stepsUp(ValueGrid.Direction.of(mode, true), floor, fraction), f64(1), f64(0))), step), f64(grid.largest()));
        Expr up = smaller(mul(add(floor, select(stepsUp(ValueGrid.Direction.of(mode, false), floor, fraction), f64(1), f64(0))), step), f64(grid.largest()));
        return select(lt(v, f64(0)), down, up);
    }

    /**
     * Whether every block's divisor X T is a power of two (or NaN): no tensor scale, and a scale datatype of powers of
     * two (E8M0) or a rule that chooses powers of two.
     */
    private boolean divisorIsAPowerOfTwo() {
        return !format.name().tensorScale() && (format.scale().fractionBits() == 0 || format.name().rule().powersOfTwo());
    }

    /**
     * Whether the element quotient |v| / (X t) rounded once in double decides as the exact one: exact where the divisor
     * is a power of two (no tensor scale, and a power-of-two rule or scale grid); else while the points the rounding
     * reads (M + 1 + b bits, b those it reads below a step: 1 to nearest, 0 in the directed modes, --sr-bits
     * stochastically) times the divisor (D bits: the scale's significand, plus 24 for a tensor scale) have at most 50
     * bits. A float32 |v| that is not such a product P d differs from it by a multiple of the finer of their last
     * places, at least 2^-51 of it, so |v| / d lies at least that far from P, beyond the double quotient's 2^-53
     * (NVFP4: 3 + 28 bits). Elsewhere the quotient is rounded to odd ({@link RoundingToOdd#quotient}), a few more
     * operations per element; for posit elements, whose points have up to 32 bits, wherever the divisor is not a power of two.
     */
    private boolean doubleQuotientDecides() {
        if (divisorIsAPowerOfTwo()) return true;
        boolean tensor = format.name().tensorScale(), ontoTheScaleGrid = !format.name().rule().powersOfTwo() && format.scale().fractionBits() > 0;
        if (format.element() instanceof PositGrid) return false;
        int bitsRead = switch (format.elementRounding()) {
            case NEAREST_EVEN, NEAREST_AWAY -> 1;
            case STOCHASTIC -> format.srBits();
            default -> 0;
        };
        int pointBits = ((ValueGrid) format.element()).fractionBits() + 1 + bitsRead;
        int divisorBits = (ontoTheScaleGrid ? format.scale().fractionBits() + 1 : 1) + (tensor ? 24 : 0);
        return pointBits + divisorBits <= 50;
    }

    /** The largest integer not above x (0 <= x < 2^52): the nearest, less one where that went above x. */
    static Expr floor(Expr x) {
        Expr even = nearestInteger(x);
        return select(gt(even, x), sub(even, f64(1)), even);
    }

    /** Whether a magnitude of that floor (in steps) and fraction of a step goes up a step in {@code direction}. */
    private static Expr stepsUp(ValueGrid.Direction direction, Expr floor, Expr fraction) {
        return switch (direction) {
            case NEAREST_EVEN -> throw new IllegalArgumentException("nearest even rounds through nearest()");
            case NEAREST_AWAY -> ge(fraction, f64(0.5));
            case UP -> gt(fraction, f64(0));
            case TOWARD_ZERO -> bool(false);
            case ODD -> and(gt(fraction, f64(0)), isEven(floor));
        };
    }

    /** Whether the integer n >= 0 (a double) is even: n / 2 is an integer. */
    static Expr isEven(Expr n) {
        Expr half = mul(n, f64(0.5));
        return eq(nearestInteger(half), half);
    }

    /**
     * magnitude with the sign of v, -0 included: a zero v quantizes to a zero magnitude in every mode, so v itself
     * is the element (no division 1 / v to tell -0 apart, one an element).
     */
    private static Expr signed(Expr magnitude, Expr v) {
        return select(lt(v, f64(0)), neg(magnitude), select(eq(v, f64(0)), v, magnitude));
    }

    /** 2^floor(log2 a) of a positive double, by Veltkamp's split (see the class comment). */
    static Expr powerOfTwoBelow(Expr a) {
        Expr g = mul(a, f64(TWO_52 + 1));
        Expr hi = sub(g, sub(g, a));
        return select(gt(hi, a), mul(hi, f64(0.5)), hi);
    }

    /**
     * The larger of two doubles, NaN when either is, as compares and a select: a double max is llvm.maximum, which
     * 32-bit RISC-V lowers to a call of fmaximum, which no library there has. Both are non-negative here, so the
     * order of +0 and -0, where the two differ, never matters.
     */
    static Expr larger(Expr a, Expr b) { return select(or(gt(b, a), ne(b, b)), b, a); }

    /** The smaller of two doubles, NaN when either is (see {@link #larger}). */
    static Expr smaller(Expr a, Expr b) { return select(or(lt(b, a), ne(b, b)), b, a); }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }

    private static Expr i32(long value) { return new Expr.IntConst(ScalarType.I32, value); }
}
