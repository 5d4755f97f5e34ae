package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.PositGrid;
import dev.byodt.compiler.dtype.ValueGrid;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * The sum of a block's products of elements, as a double D whose rounding to float32, after scaling by any power
 * of two, is the rounding of the exact sum so scaled: the exact sum itself where it fits a double, else (FP8
 * E5M2) the exact sum rounded to a double to odd, or (posits whose sums outgrow a double) the sum of limbs
 * rounded to odd. Scaled by the two blocks' scales in double, it stays exact: powers of two only move the
 * exponent, and other scales (NVFP4's UE4M3, 4 bits each) are admitted only where the exact sum and their product
 * fit 53 bits together (FP4 under UE4M3: 13 + 8).
 * <p>
 * Bits: a product of elements with exponents E1, E2 (values below 2^(E+1), multiples of 2^(E - M)) is below
 * 2^(E1 + E2 + 2) and a multiple of 2^(E1 + E2 - 2M); all elements are multiples of the smallest, 2^s. So n
 * products sum exactly in log2(n) + 2 emax + 2 - 2s bits: 41 for FP8 E4M3, 23 FP6 E3M2, 17 FP6 E2M3, 13 FP4,
 * 19 INT8 (fxp8_6), with blocks of 32. FP8 E5M2 needs 69. There the products at or above 2^t and those below
 * are summed apart: those at or above are multiples of 2^(t - 1 - 2M) below n 2^(2 emax + 2), those below
 * multiples of 2^(2s) below n 2^t, so each part is exact when log2(n) + 2 emax + 3 + 2M - t and
 * log2(n) + t - 2s are at most 53 (E5M2: t = 2, 40 and 39 bits). The two exact parts' sum is rounded to a
 * double with Knuth's TwoSum (the rounded sum and its exact error), then made odd: when the error is not 0
 * and the last bit of the rounded sum is even, the neighbour on the error's side is taken (the last bit read
 * off |s| / ulp(s), ulp from {@link ActivationQuantizer#powerOfTwoBelow}). A double rounded to odd from the
 * exact value rounds to float32 as the exact value does (53 >= 24 + 2; Boldo and Melquiond 2008).
 * <p>
 * Posits: every posit is a multiple of minpos (the unit of a scale, 2^(s - f(s)), never decreases as s grows:
 * {@link dev.byodt.compiler.dtype.PositScales}), so a product is a multiple of minpos^2 of magnitude at most
 * maxpos^2, and any partial sum of n of them a multiple of minpos^2 = 2^(-2S) of magnitude at most
 * n maxpos^2 = n 2^(2S), S = (N - 2) 2^es: an integer of log2(n) + 4S bits times 2^(-2S), exact in a double
 * when that is at most 53 (posit8 es 0: 5 + 24 = 29, es 1: 5 + 48 = 53) and in float32 when at most 24 (posit6
 * es 0: 5 + 16 = 21). Wider ones (posit8 es 2: 5 + 96 = 101 bits, es 3: 197) are checked block by block as wide
 * elements are (below, with M = N - 3 - es: a nonzero posit is a multiple of a power of two above |x| 2^-(N-2-es));
 * a block that fails every check sums its products in
 * {@link ExactBlockTotal}'s limbs, exactly, and takes the limbs' sum rounded to odd (at least 27 bits); under scales
 * that are not powers of two (UE4M3) their sum must hold the scales' bits too (posit8 es 0: 29 + 8), or, in
 * limbs, each product times the scales enters the limbs, exact while a product's 2 (N - 2 - es) bits and the
 * scales' fit a double, else as two doubles ({@link #productsInTwoParts}).
 * <p>
 * Where the sum takes at most 24 bits (FP6, FP4, INT8) it is summed in float32, whose vectors hold twice a
 * double's lanes: each product of two elements is then a float32 too, and so is every partial sum.
 * <p>
 * A split format's blocks whose elements lie close enough together fit one double after all ({@link #fitsOneDouble}):
 * {@link #whole} sums them so, and that exact sum plus a second part of 0 rounds to odd to itself.
 * <p>
 * Wide elements, whose sums fit neither one double nor two (bfloat16: 5 + 254 + 2 + 266 = 527 bits for blocks of
 * 32, float16: 85, or any sum under a scale that is not a power of two beyond one double), are checked block by
 * block: a block whose largest and smallest nonzero products lie close enough together ({@link #fitsOneDouble(Expr, Expr)};
 * bfloat16 under E8M0: within 2^31 for blocks of 32, float16 2^25) is summed in one double, exactly; under
 * power-of-two scales one whose products lie within twice as many bits ({@link #fitsTwoDoubles}: 2^62, 2^50) in two
 * doubles split at a threshold of its own and rounded to odd as MXFP8 E5M2's; one whose products lie within a wider
 * bound ({@link #fitsExtracted}: float32 elements, whose 48-bit products one double never sums, within 2^46) in two
 * doubles by extracting each product's high part ({@link #extractingBelow}); and any other in limbs
 * ({@link #emitInLimbs}), exactly too. Each gives the exact sum's float32, so which one a block takes changes no bit.
 * <p>
 * Elements kept as integers k of at most 31 bits times their smallest value u ({@link ElementStorage}: fixed point of
 * up to 32 bits, whose products have up to 62 bits and block sums 67, beyond a double) multiply as 64-bit integers,
 * exactly. Each product p = k k' splits into its truncated quotient by 2^26 and remainder, p = q 2^26 + r, |q| < 2^36,
 * |r| < 2^26, summed apart in two 64-bit integers, which for blocks of up to 2^17 stay below 2^53: both are exact in
 * double, and so is each times u^2 2^26 or u^2 and the two scales (at most 41 + 8 bits for blocks of 32). Their sum
 * rounded to a double to odd, as MXFP8 E5M2's two parts, is the exact scaled block sum rounded to odd, which rounds to
 * float32 as the exact sum does (here the scales come first, so any scale keeps it so).
 */
final class ExactBlockSum {
    private static final int DOUBLE_BITS = 53;
    private static final int FLOAT_BITS = 24;
    /** Float32's smallest subnormal and first power of two beyond its range, as exponents. */
    private static final int FLOAT_MIN_EXPONENT = -149, FLOAT_MAX_EXPONENT = 128;
    /** Where an integer product of elements splits into quotient and remainder, and the quotient's bits: 62 - 26. */
    private static final int REMAINDER_BITS = 26, QUOTIENT_BITS = 2 * ElementStorage.MOST_INTEGER_BITS - REMAINDER_BITS;

    private final BlockFormat format;
    /** Where the products split into two exact sums (F64), or empty where one sum is exact. */
    private final Optional<Expr> split;
    /** F32 where every product and every partial sum of a block is a float32 exactly, else F64. */
    private final ScalarType type;
    /** Whether the elements are integers whose products are summed as quotients and remainders by 2^26 (see the class comment). */
    private final boolean inIntegers;
    /** Where a checked format's block extracts each product's high part ({@link #extractingBelow}: sigma, F64), or empty. */
    private final Optional<Expr> sigma;
    /** Whether each block is summed in one double where its magnitudes admit it ({@link #fitsOneDouble(Expr, Expr)}), else in limbs: wide elements, and posits whose sums outgrow a double. */
    private final boolean checked;
    /** Whether a product of two elements takes two doubles, summed in limbs ({@link #productsInTwoParts}). */
    private final boolean twoPartProducts;

    private ExactBlockSum(BlockFormat format, Optional<Expr> split, ScalarType type, boolean checked) {
        this(format, split, type, checked, false, Optional.empty(), false);
    }

    private ExactBlockSum(BlockFormat format, Optional<Expr> split, ScalarType type, boolean checked, boolean inIntegers, Optional<Expr> sigma,
                          boolean twoPartProducts) {
        this.format = format;
        this.twoPartProducts = twoPartProducts;
        this.split = split;
        this.type = type;
        this.checked = checked;
        this.inIntegers = inIntegers;
        this.sigma = sigma;
    }

    /**
     * How {@code format}'s block sums are computed exactly, or empty where a posit element times its scales outgrows a
     * double (scales of more than 11 fraction bits over posit32 es 2), or an integer element's quotient sums times its
     * scales outgrow a double.
     */
    static Optional<ExactBlockSum> of(BlockFormat format) {
        int countBits = 64 - Long.numberOfLeadingZeros(format.blockSize() - 1L);
        if (ElementStorage.of(format).map(ElementStorage::integers).orElse(false)) {
            if (countBits + QUOTIENT_BITS + scaleBits(format) > DOUBLE_BITS) return Optional.empty();
            return Optional.of(new ExactBlockSum(format, Optional.empty(), ScalarType.I64, false, true, Optional.empty(), false));
        }
        if (format.element() instanceof PositGrid posit) {
            int maxScale = posit.maxExponent(), sumBits = countBits + 4 * maxScale;
            boolean inFloat32 = sumBits <= FLOAT_BITS && -2 * maxScale >= FLOAT_MIN_EXPONENT && countBits + 2 * maxScale < FLOAT_MAX_EXPONENT;
            if (sumBits + scaleBits(format) <= DOUBLE_BITS) {
                return Optional.of(new ExactBlockSum(format, Optional.empty(), inFloat32 ? ScalarType.F32 : ScalarType.F64, false));
            }
            int significantBits = posit.bits() - 2 - posit.es();
            if (2 * significantBits + scaleBits(format) > DOUBLE_BITS) {
                // In limbs a product times the scales must be exact: as two doubles, one element taking the scales first.
                if (significantBits + scaleBits(format) > DOUBLE_BITS) return Optional.empty();
                return Optional.of(new ExactBlockSum(format, Optional.empty(), ScalarType.F64, true, false, Optional.empty(), true));
            }
            // Checked as wide elements are, block by block: most blocks' products lie close enough together for one or two doubles.
            return Optional.of(new ExactBlockSum(format, Optional.empty(), ScalarType.F64, true));
        }
        ValueGrid element = (ValueGrid) format.element();
        int emax = element.maxExponent(), s = element.smallestExponent(), m = element.fractionBits();
        int sumBits = countBits + 2 * emax + 2 - 2 * s;
        int scaleBits = scaleBits(format);
        if (sumBits + scaleBits <= DOUBLE_BITS) {
            // Any partial sum of a block is a multiple of 2^(2s) below 2^(countBits + 2 emax + 2) too, so within
            // float32's 24 bits and its exponents it is exact in whatever order the products are added.
            boolean inFloat32 = sumBits <= FLOAT_BITS && 2 * s >= FLOAT_MIN_EXPONENT && countBits + 2 * emax + 2 <= FLOAT_MAX_EXPONENT;
            return Optional.of(new ExactBlockSum(format, Optional.empty(), inFloat32 ? ScalarType.F32 : ScalarType.F64, false));
        }
        int large = countBits + 2 * emax + 3 + 2 * m, small = countBits - 2 * s;
        int t = Math.floorDiv(large - small, 2);
        if (scaleBits == 0 && large - t <= DOUBLE_BITS && small + t <= DOUBLE_BITS) {
            return Optional.of(new ExactBlockSum(format, Optional.of(f64(Math.scalb(1.0, t))), ScalarType.F64, false));
        }
        return Optional.of(new ExactBlockSum(format, Optional.empty(), ScalarType.F64, true));
    }

    /**
     * The bits the product of two blocks' scales adds to a scaled block sum, which must stay exact: none for powers
     * of two, which only move the exponent, 2 (M + 1) for scales of M fraction bits (NVFP4's UE4M3: 8).
     */
    private static int scaleBits(BlockFormat format) {
        return scalesArePowersOfTwo(format) ? 0 : 2 * (format.scale().fractionBits() + 1);
    }

    /** Whether every value of the scale datatype is a power of two (E8M0), whatever the rule chooses. */
    private static boolean scalesArePowersOfTwo(BlockFormat format) { return format.scale().fractionBits() == 0; }

    /** Whether the products split into two sums: where one double cannot hold every block's sum exactly. */
    boolean splits() { return split.isPresent(); }

    /** Whether a block is summed in one double only where its magnitudes admit it, else in limbs (wide elements, and posits whose sums outgrow a double). */
    boolean checked() { return checked; }

    /** The block sums in one double, unsplit: exact for the blocks {@link #fitsOneDouble} admits. */
    ExactBlockSum whole() { return new ExactBlockSum(format, Optional.empty(), ScalarType.F64, false); }

    /**
     * Whether every block sum of count products of elements a and b (a split format's: M fraction bits each,
     * magnitudes at most the largest element, G) is exact in one double where the nonzero a are at least smallestA
     * and the nonzero b at least smallestB (F64, from {@link BlockMagnitudes}; false where one is NaN). A nonzero
     * element x is a multiple of its last bit, a power of two above |x| 2^-(M+1) (the subnormals' too), so each
     * product is a multiple of a power of two above smallestA smallestB 2^-(2M+2), hence of L, the largest power
     * of two not above that. Every partial sum is a multiple of L too, at most count G^2 in magnitude, so exact in
     * a double where that is at most 2^53 L, which L > smallestA smallestB 2^-(2M+3) ensures when
     * count G^2 2^(2M+3) <= 2^53 smallestA smallestB. Both sides are exact: products of a few elements, a count
     * and powers of two.
     */
    Expr fitsOneDouble(Expr count, Expr smallestA, Expr smallestB) {
        ValueGrid element = (ValueGrid) format.element();
        double largest = element.largest();
        Expr span = mul(cast(ScalarType.F64, count), f64(largest * largest * Math.scalb(1.0, 2 * element.fractionBits() + 3)));
        return le(span, mul(mul(f64(Math.scalb(1.0, DOUBLE_BITS)), smallestA), smallestB));
    }

    /**
     * Whether a checked format's block, whose nonzero products of elements are at least {@code smallestProduct} and
     * at most {@code largestProduct} in magnitude (F64; +infinity and 0 for a block of zeros; false where one is NaN),
     * is summed exactly in one double, and times its scales too. As for {@link #fitsOneDouble(Expr, Expr, Expr)} each
     * product is a multiple of L, the largest power of two not above smallestProduct 2^-(2M+2), so L > smallestProduct
     * 2^-(2M+3), and every partial sum of at most 2^c products (c = ceil(log2 block size)) is a multiple of L of
     * magnitude at most 2^c largestProduct. That is below 2^(53 - b) L, b the bits the scales' product adds (0 for
     * powers of two, 8 for two UE4M3s), when largestProduct 2^(c + 2M + 3 + b - 53) <= smallestProduct; then the sum
     * is an integer of at most 53 - b bits times L, and its product with the scales is exact. Both sides are exact:
     * products of two elements (at most 48 bits) times a power of two.
     */
    Expr fitsOneDouble(Expr largestProduct, Expr smallestProduct) {
        return le(mul(largestProduct, f64(Math.scalb(1.0, checkExponent()))), smallestProduct);
    }

    /**
     * Whether a checked format's blocks that {@link #fitsOneDouble(Expr, Expr)} refuses may split into two exact
     * sums ({@link #fitsTwoDoubles}): where its scales are powers of two, which keep the two sums' rounding to odd.
     */
    boolean splitsWhereTwoFit() { return checked && !twoPartProducts && scalesArePowersOfTwo(format); }

    /**
     * Whether a block of a checked format whose scales are powers of two, with products from smallestProduct to
     * largestProduct (nonzero magnitudes, F64), sums exactly in two doubles split at {@link #threshold}: products at
     * or above T are multiples of a power of two above T 2^-(2M+3) and sum to at most 2^c largestProduct, exact in
     * a double when that is at most 2^53 T 2^-(2M+3); those below T are multiples of a power of two above
     * smallestProduct 2^-(2M+3) and sum to less than 2^c T, exact when 2^c T <= 2^53 smallestProduct 2^-(2M+3).
     * T = largestProduct 2^(c + 2M + 3 - 53) meets the first, and the second when largestProduct
     * 2^(2 (c + 2M + 3 - 53)) <= smallestProduct: products within 2^62 of each other for bfloat16 in blocks of 32,
     * 2^50 for float16. The two sums' rounding to odd ({@link #result}) then gives the block's float32 as for MXFP8
     * E5M2.
     */
    Expr fitsTwoDoubles(Expr largestProduct, Expr smallestProduct) {
        return le(mul(largestProduct, f64(Math.scalb(1.0, 2 * checkExponent()))), smallestProduct);
    }

    /**
     * Whether a checked format's block with products from smallestProduct to largestProduct (nonzero magnitudes, F64)
     * sums exactly in two doubles by extracting each product's high part ({@link #extractingBelow}), under any scales:
     * where largestProduct 2^(2c + 2b + 2M - 102) <= smallestProduct, products within 2^46 of each other for float32
     * elements in blocks of 32 under E8M0, 2^30 under UE4M3, 2^78 for bfloat16.
     */
    Expr fitsExtracted(Expr largestProduct, Expr smallestProduct) {
        // Two-part products add two remainders of at most W / 2 each, a bit more ({@link #productsInTwoParts}).
        int exponent = 2 * extractionCountBits() + 2 * scaleBits(format) + 2 * fractionBits() - 2 * DOUBLE_BITS + 4 + (twoPartProducts ? 1 : 0);
        return le(mul(largestProduct, f64(Math.scalb(1.0, exponent))), smallestProduct);
    }

    /**
     * This checked format's block sums as two exact partial sums, for a block whose products are at most
     * largestProduct (F64) and lie as close together as {@link #fitsExtracted} says: each product p splits into
     * q = (sigma + p) - sigma and p - q, sigma = 3 2^51 W, W = 2^floor(log2 largestProduct) 2^(c + b - 51), a power of
     * two (Rump, Ogita and Oishi's ExtractScalar). |p| < 2^51 W keeps sigma + p in sigma's binade, whose spacing is W,
     * so q is p rounded to a multiple of W, exact (Sterbenz), and p - q its rounding error, exact too, at most W / 2.
     * The sum of the q, multiples of W of magnitude at most 2^c (largestProduct + W / 2), is below 2^(53 - b) W: exact,
     * and times the two scales (b bits) too. The p - q are multiples of the smaller of W and L (the products' common
     * unit, a power of two above smallestProduct 2^-(2M+3), as {@link #fitsOneDouble(Expr, Expr)} says) of magnitude at
     * most W / 2, so their sum is at most 2^(c-1) W, exact with the scales' bits where 2^(c-1) W <= 2^(53 - b) L, which
     * the check ensures. Both parts times the scales are then rounded to odd together, as the integer elements' are.
     */
    ExactBlockSum extractingBelow(KernelBuilder kb, Expr largestProduct) {
        Expr at = mul(ActivationQuantizer.powerOfTwoBelow(select(gt(largestProduct, f64(0)), largestProduct, f64(1))),
            f64(3 * Math.scalb(1.0, extractionCountBits() + scaleBits(format))));
        return new ExactBlockSum(format, Optional.empty(), ScalarType.F64, false, false, Optional.of(kb.get(kb.local("sigma", at))), twoPartProducts);
    }

    /** c = ceil(log2 block size) of {@link #extractingBelow}, at least 1, which keeps |p| < 2^51 W for blocks of one. */
    private int extractionCountBits() { return Math.max(1, 64 - Long.numberOfLeadingZeros(format.blockSize() - 1L)); }

    /** Where a block that {@link #fitsTwoDoubles} splits its products: largestProduct 2^(c + 2M + 3 - 53), F64. */
    Expr threshold(Expr largestProduct) { return mul(largestProduct, f64(Math.scalb(1.0, checkExponent()))); }

    /** This format's block sums split at {@code threshold} (F64) into two exact sums: a block that {@link #fitsTwoDoubles}. */
    ExactBlockSum splitAt(Expr threshold) { return new ExactBlockSum(format, Optional.of(threshold), ScalarType.F64, false); }

    /** c + 2M + 3 + b - 53 of a checked format ({@link #fitsOneDouble(Expr, Expr)}). */
    private int checkExponent() {
        int countBits = 64 - Long.numberOfLeadingZeros(format.blockSize() - 1L);
        return countBits + 2 * fractionBits() + 3 + scaleBits(format) - DOUBLE_BITS;
    }

    /**
     * M of a checked format's proofs: every nonzero element x is a multiple of a power of two above |x| 2^-(M+1), M
     * the fraction bits of a grid, and N - 3 - es for a posit, whose at most N - 2 - es significant bits make it so.
     */
    private int fractionBits() {
        return format.element() instanceof PositGrid posit ? posit.bits() - 3 - posit.es() : ((ValueGrid) format.element()).fractionBits();
    }

    /** The type of the products and of the partial sums. */
    ScalarType type() { return type; }

    /** How many partial sums a block's sum takes: 1, or 2 where the products split (by magnitude, or integers by quotient and remainder). */
    int parts() { return split.isPresent() || inIntegers || sigma.isPresent() ? 2 : 1; }

    /** The exact product of two elements (F32, or already {@link #type()}), in {@link #type()}. */
    Expr product(Expr a, Expr b) { return mul(cast(type, a), cast(type, b)); }

    /**
     * What {@code product} adds to partial sum {@code part}: all of it, or, split, itself or 0 by its magnitude, or an
     * integer's quotient by 2^26 (part 0) or remainder (part 1).
     */
    Expr share(Expr product, int part) {
        if (inIntegers) return part == 0 ? div(product, 1L << REMAINDER_BITS) : rem(product, 1L << REMAINDER_BITS);
        if (sigma.isPresent()) {
            Expr high = sub(add(sigma.get(), product), sigma.get());
            return part == 0 ? high : sub(product, high);
        }
        if (split.isEmpty()) return product;
        Expr isLarge = ge(abs(product), split.get());
        return part == 0 ? select(isLarge, product, constant(type, 0)) : select(isLarge, constant(type, 0), product);
    }

    /**
     * The partial sums ({@link #parts()}, {@link #type()}) with the products of elements as.get(u) bs.get(u) added:
     * every product and every partial sum is exact, so the order of the additions and whether a product and its
     * addition are fused (one rounding of an exact value) change no bit. Unsplit, they are added in two chains of
     * multiply-adds, which the processor overlaps.
     */
    List<Expr> accumulate(KernelBuilder kb, List<Expr> partials, List<Expr> as, List<Expr> bs) {
        if (parts() == 1) {
            Expr even = partials.getFirst(), odd = null;
            for (int u = 0; u < as.size(); u++) {
                Expr a = cast(type, as.get(u)), b = cast(type, bs.get(u));
                if (u % 2 == 0) even = exactMac(even, a, b);
                else odd = odd == null ? mul(a, b) : exactMac(odd, a, b);
            }
            return List.of(odd == null ? even : add(even, odd));
        }
        List<Local> products = new ArrayList<>();
        for (int u = 0; u < as.size(); u++) {
            if (!twoPartProducts) products.add(kb.local("product", product(as.get(u), bs.get(u))));
            else for (Expr part : twoProduct(kb, as.get(u), bs.get(u))) products.add(kb.local("product", part));
        }
        List<Expr> sums = new ArrayList<>();
        for (int part = 0; part < parts(); part++) {
            Expr sum = partials.get(part);
            for (Local p : products) sum = add(sum, share(kb.get(p), part));
            sums.add(sum);
        }
        return sums;
    }

    /** The block's sum (see the class comment) from its partial sums, F64. */
    Expr result(KernelBuilder kb, List<Expr> parts) {
        return split.isEmpty() ? cast(ScalarType.F64, parts.getFirst()) : roundedToOdd(kb, parts.get(0), parts.get(1));
    }

    /** The block's sum of products as partial sums (from {@link #emitParts}) times {@code scales} (F64), rounded once to float32 (F32). */
    Expr rounded(KernelBuilder kb, List<Expr> parts, Expr scales) {
        if (!inIntegers && sigma.isEmpty()) return cast(ScalarType.F32, mul(result(kb, parts), scales));
        List<Expr> scaled = scaledParts(parts, scales);
        return cast(ScalarType.F32, roundedToOdd(kb, scaled.get(0), scaled.get(1)));
    }

    /**
     * Each partial sum's value times {@code scales} (F64), exact: the sum itself, or an integer element's quotient
     * sum times u^2 2^26 and its remainder sum times u^2 (see the class comment).
     */
    private List<Expr> scaledParts(List<Expr> parts, Expr scales) {
        if (!inIntegers) return parts.stream().map(part -> mul(cast(ScalarType.F64, part), scales)).toList();
        double unit = QuantizedOperand.storage(format).unit();
        double[] weights = {unit * unit * Math.scalb(1.0, REMAINDER_BITS), unit * unit};
        List<Expr> scaled = new ArrayList<>();
        for (int part = 0; part < parts.size(); part++) scaled.add(mul(mul(cast(ScalarType.F64, parts.get(part)), f64(weights[part])), scales));
        return scaled;
    }

    /**
     * Whether a product of two elements, or under scales that are not powers of two a product times its scales, takes
     * more than a double's 53 bits (posits of more than 26 significant bits: posit32 es 2 has 28, so 56; under UE4M3
     * scales, of more than 22). Each product is then a b = h + l, h the rounded product and l its error, exact
     * ({@link RoundingToOdd#productError}: Dekker's product, the operands within 2^-240 .. 2^240), both multiples of
     * minpos^2 below the block's bound. In the tiles a block whose products lie
     * close enough together ({@link #fitsExtracted}) is summed as two extracted parts ({@link #extractingBelow}), h and l
     * each split there: the high parts, multiples of W, sum as a single product's do; each remainder is at most W / 2, so
     * a product adds at most W to the low part, which is exact while 2^c W <= 2^(53 - b) L, one bit less room than single
     * products leave: products within 2^37 of each other for posit32 es 2 (M = 27) in blocks of 32. Any other block (and
     * a dot product outside the tiles) enters both parts into {@link ExactBlockTotal}'s limbs, whose sum rounded to odd
     * times the scales is rounded to float32, as for the posits whose products one double holds; under scales that are
     * not powers of two, which do not keep a rounding to odd, the parts of (a s) b enter, s the scales (a s exact:
     * {@link #scaledTwoProduct}), and the limbs' sum is rounded once. No block is summed in one double or split at a
     * threshold: those take each product as one double.
     */
    boolean productsInTwoParts() { return twoPartProducts; }

    /** The exact product a b (elements, F32 or F64, or F64 elements times scales) as two doubles, h + l ({@link #productsInTwoParts}). */
    private static List<Expr> twoProduct(KernelBuilder kb, Expr a, Expr b) {
        Local x = kb.local("a", cast(ScalarType.F64, a)), y = kb.local("b", cast(ScalarType.F64, b));
        Local h = kb.local("product", mul(kb.get(x), kb.get(y)));
        return List.of(kb.get(h), RoundingToOdd.productError(kb, kb.get(x), kb.get(y), kb.get(h)));
    }

    /**
     * The block's exact sum of the products of elements a(j) b(j) over j < count times {@code scales} (F64), rounded once
     * to float32 (F32).
     */
    Expr emitRounded(KernelBuilder kb, Expr count, Function<Expr, Expr> a, Function<Expr, Expr> b, Expr scales) {
        if (twoPartProducts) return emitInLimbs(kb, count, a, b, scales);
        return emitRounded(kb, count, j -> product(a.apply(j), b.apply(j)), scales);
    }

    /**
     * The block's exact sum of the products a(j) b(j) over j < count times {@code scales}, rounded once to float32 (F32),
     * in limbs ({@link #emitInLimbs(KernelBuilder, Expr, Function, Expr)}); two-part products enter both their parts.
     */
    Expr emitInLimbs(KernelBuilder kb, Expr count, Function<Expr, Expr> a, Function<Expr, Expr> b, Expr scales) {
        if (!twoPartProducts) return emitInLimbs(kb, count, j -> product(a.apply(j), b.apply(j)), scales);
        if (scalesArePowersOfTwo(format)) {
            ExactBlockTotal sum = ExactBlockTotal.ofProducts(kb, format);
            kb.loop(count, j -> twoProduct(kb, a.apply(j), b.apply(j)).forEach(sum::include));
            return cast(ScalarType.F32, mul(sum.roundedToOdd(), scales));
        }
        ExactBlockTotal sum = ExactBlockTotal.zero(kb, format);
        kb.loop(count, j -> scaledTwoProduct(kb, a.apply(j), b.apply(j), scales).forEach(sum::include));
        return sum.rounded();
    }

    /**
     * The exact product a b times {@code scales} (F64s) as two doubles ({@link #productsInTwoParts}): under scales that are
     * powers of two each part of a b times them; under others the product of a times them (at most N - 2 - es + 8 bits
     * for UE4M3's, exact: {@link #of}) and b, whose up to 2 (N - 2 - es) + 8 bits two doubles hold.
     */
    private List<Expr> scaledTwoProduct(KernelBuilder kb, Expr a, Expr b, Expr scales) {
        if (scalesArePowersOfTwo(format)) return twoProduct(kb, a, b).stream().map(part -> mul(part, scales)).toList();
        return twoProduct(kb, mul(cast(ScalarType.F64, a), scales), b);
    }

    /** The block's exact sum of {@code product} over j < count (products from {@link #product}) times {@code scales} (F64), rounded once to float32 (F32). */
    private Expr emitRounded(KernelBuilder kb, Expr count, Function<Expr, Expr> product, Expr scales) {
        if (!checked) return rounded(kb, emitParts(kb, count, product), scales);
        CheckedSum sum = emitChecked(kb, count, product);
        Local result = kb.local("block.result", constant(ScalarType.F32, 0));
        Runnable extracted = extractedElse(kb, sum, extraction -> kb.assign(result, extraction.rounded(kb, extraction.emitParts(kb, count, product), scales)),
            () -> kb.assign(result, emitInLimbs(kb, count, product, scales)));
        kb.ifElse(sum.fits(), () -> kb.assign(result, rounded(kb, List.of(sum.sum()), scales)), !splitsWhereTwoFit() ? extracted : () -> {
            ExactBlockSum split = splitAt(kb.get(kb.local("threshold", threshold(sum.largest()))));
            kb.ifElse(fitsTwoDoubles(sum.largest(), sum.smallest()), () -> kb.assign(result, split.rounded(kb, split.emitParts(kb, count, product), scales)), extracted);
        });
        return kb.get(result);
    }

    /** Adds the block's exact sum of the products a(j) b(j) over j < count times {@code scales} (F64) to {@code total}, exactly. */
    void emitScaledInto(KernelBuilder kb, ExactBlockTotal total, Expr count, Function<Expr, Expr> a, Function<Expr, Expr> b, Expr scales) {
        if (twoPartProducts) {
            kb.loop(count, j -> scaledTwoProduct(kb, a.apply(j), b.apply(j), scales).forEach(total::include));
            return;
        }
        emitScaledInto(kb, total, count, j -> product(a.apply(j), b.apply(j)), scales);
    }

    private void emitScaledInto(KernelBuilder kb, ExactBlockTotal total, Expr count, Function<Expr, Expr> product, Expr scales) {
        Runnable byProducts = () -> kb.loop(count, j -> total.include(mul(product.apply(j), scales)));
        if (checked) {
            CheckedSum sum = emitChecked(kb, count, product);
            Runnable extracted = extractedElse(kb, sum, extraction -> {
                for (Expr part : extraction.scaledParts(extraction.emitParts(kb, count, product), scales)) total.include(part);
            }, byProducts);
            kb.ifElse(sum.fits(), () -> total.include(mul(sum.sum(), scales)), !splitsWhereTwoFit() ? extracted : () -> {
                ExactBlockSum split = splitAt(kb.get(kb.local("threshold", threshold(sum.largest()))));
                kb.ifElse(fitsTwoDoubles(sum.largest(), sum.smallest()), () -> {
                    for (Expr part : split.emitParts(kb, count, product)) total.include(mul(part, scales));
                }, extracted);
            });
        } else {
            for (Expr part : scaledParts(emitParts(kb, count, product), scales)) total.include(part);
        }
    }

    /**
     * The block's exact sum of {@code product} over j < count times {@code scales}, rounded once to float32 (F32),
     * summed in limbs ({@link ExactBlockTotal}). Under scales that are powers of two, the products alone, whose sum
     * rounded to odd then takes the scales exactly; else each product times the scales (exact: {@link #of} admits
     * posits whose products and two scales fit 53 bits, and {@link ActivationQuantizer} minifloats of at most 19
     * fraction bits onto such scales, 2M + 2 + 8 bits), the sum rounded once: rounding to odd is not preserved by a
     * product that is not a power of two.
     */
    private Expr emitInLimbs(KernelBuilder kb, Expr count, Function<Expr, Expr> product, Expr scales) {
        if (scalesArePowersOfTwo(format)) {
            ExactBlockTotal sum = ExactBlockTotal.ofProducts(kb, format);
            kb.loop(count, j -> sum.include(product.apply(j)));
            return cast(ScalarType.F32, mul(sum.roundedToOdd(), scales));
        }
        ExactBlockTotal sum = ExactBlockTotal.zero(kb, format);
        kb.loop(count, j -> sum.include(mul(product.apply(j), scales)));
        return sum.rounded();
    }

    /**
     * What a checked block does where neither one double nor a split holds its sum: {@code extracted} with the
     * extraction of {@link #extractingBelow} where {@link #fitsExtracted} admits it, else {@code otherwise} (limbs).
     */
    private Runnable extractedElse(KernelBuilder kb, CheckedSum sum, Consumer<ExactBlockSum> extracted, Runnable otherwise) {
        return () -> {
            ExactBlockSum extraction = extractingBelow(kb, sum.largest());
            kb.ifElse(fitsExtracted(sum.largest(), sum.smallest()), () -> extracted.accept(extraction), otherwise);
        };
    }

    /**
     * A checked format's block summed in one double (F64), the smallest nonzero and the largest magnitude of its
     * products, and whether that sum is exact ({@link #fitsOneDouble(Expr, Expr)}).
     */
    private record CheckedSum(Expr sum, Expr smallest, Expr largest, Expr fits) {}

    /**
     * The products over j < count of a checked format's block summed in one double, with the smallest nonzero and the
     * largest magnitude of the products, which say whether that sum is exact.
     */
    private CheckedSum emitChecked(KernelBuilder kb, Expr count, Function<Expr, Expr> product) {
        Local sum = kb.local("block", f64(0));
        Local smallest = kb.local("smallest.product", f64(Double.POSITIVE_INFINITY)), largest = kb.local("largest.product", f64(0));
        kb.loop(count, j -> {
            Local p = kb.local("product", product.apply(j));
            Local magnitude = kb.local("magnitude", abs(kb.get(p)));
            kb.assign(sum, add(kb.get(sum), kb.get(p)));
            kb.assign(smallest, ActivationQuantizer.smaller(kb.get(smallest),
                select(eq(kb.get(magnitude), f64(0)), f64(Double.POSITIVE_INFINITY), kb.get(magnitude))));
            kb.assign(largest, ActivationQuantizer.larger(kb.get(largest), kb.get(magnitude)));
        });
        return new CheckedSum(kb.get(sum), kb.get(smallest), kb.get(largest), fitsOneDouble(kb.get(largest), kb.get(smallest)));
    }

    /** The block's exact partial sums ({@link #parts()}, {@link #type()}) of {@code product} over j < count (products from {@link #product}). */
    List<Expr> emitParts(KernelBuilder kb, Expr count, Function<Expr, Expr> product) {
        List<Local> sums = new ArrayList<>();
        for (int part = 0; part < parts(); part++) sums.add(kb.local("block", constant(type, 0)));
        kb.loop(count, j -> {
            Local p = kb.local("product", product.apply(j));
            for (int part = 0; part < parts(); part++) kb.assign(sums.get(part), add(kb.get(sums.get(part)), share(kb.get(p), part)));
        });
        return sums.stream().map(kb::get).toList();
    }

    /** a + b rounded to a double to odd (see the class comment): Knuth's TwoSum gives the rounded sum and its exact error. */
    private static Expr roundedToOdd(KernelBuilder kb, Expr a, Expr b) {
        Local s = kb.local("sum", add(a, b));
        Local bPart = kb.local("b.part", sub(kb.get(s), a));
        return RoundingToOdd.towardExact(kb, kb.get(s), add(sub(a, sub(kb.get(s), kb.get(bPart))), sub(b, kb.get(bPart))));
    }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
