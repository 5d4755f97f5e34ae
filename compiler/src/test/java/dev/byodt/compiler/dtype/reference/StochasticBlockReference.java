package dev.byodt.compiler.dtype.reference;

import dev.byodt.compiler.dtype.RoundingMode;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;

/**
 * Block quantization with the elements rounded stochastically, given each element's random bits: the block's
 * scale and each element's listed neighbour toward zero are {@link BlockReference}'s in the toward-zero mode (the
 * rule's scale does not depend on the elements' rounding); the element then goes up to the next listed value when
 * {@link Rounding#stochastic} of its position between the two (0 at the one below, 1 at the one above) carries.
 * At or above the largest element the element is the largest, as in every mode. Posit elements are listed and
 * rounded toward zero by {@link dev.byodt.compiler.dtype.posit.PositReference} (through
 * {@link BlockReference#of}), so a posit steps between its neighbours by its distance from them too, and a
 * quotient below minpos, whose neighbour toward zero is minpos (a posit never rounds a nonzero value to 0), stays
 * there.
 */
public final class StochasticBlockReference {
    private final BlockReference towardZero;

    public StochasticBlockReference(List<Rational> elements, List<Rational> scales, String rule) {
        this(new BlockReference(elements, scales, rule, RoundingMode.TOWARD_ZERO));
    }

    private StochasticBlockReference(BlockReference towardZero) {
        this.towardZero = towardZero;
    }

    /** The reference of a block datatype with these element and scale spellings, as {@link BlockReference#of} takes them. */
    public static StochasticBlockReference of(String element, String scale, String rule) {
        return new StochasticBlockReference(BlockReference.of(element, scale, rule, RoundingMode.TOWARD_ZERO));
    }

    /** The block {@code values} under tensor scale {@code t}, value j's element rounded with the {@code bits} random bits {@code random[j]}. */
    public BlockReference.Block quantize(float[] values, Rational t, int[] random, int bits) {
        BlockReference.Block below = towardZero.quantize(values, t);
        if (below.scale() == null) return below;
        Rational divisor = below.scale().multiply(t);
        Rational[] rounded = new Rational[values.length];
        for (int j = 0; j < values.length; j++) {
            Rational q = Rational.of(new BigDecimal(Math.abs(values[j]))).divide(divisor);
            Rational low = below.elements()[j];
            Rational high = towardZero.elementAbove(low);
            if (high == null || q.compareTo(high) >= 0 || q.compareTo(low) <= 0) {
                rounded[j] = low;
                continue;
            }
            Rational position = q.subtract(low).divide(high.subtract(low));
            rounded[j] = Rounding.stochastic(position, bits, random[j]).equals(BigInteger.ONE) ? high : low;
        }
        return new BlockReference.Block(below.scale(), rounded, below.negative());
    }

    public BlockReference towardZero() { return towardZero; }
}
