package dev.byodt.compiler.dtype.reference;

import dev.byodt.compiler.dtype.RoundingMode;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Block quantization with the elements rounded stochastically, given each element's random bits: the block's
 * scale and each element's listed neighbour toward zero are {@link BlockReference}'s in the toward-zero mode (the
 * rule's scale does not depend on the elements' rounding); the element then goes up to the next listed value when
 * {@link Rounding#stochastic} of its position between the two (0 at the one below, 1 at the one above) carries.
 * At or above the largest element the element is the largest, as in every mode.
 */
public final class StochasticBlockReference {
    private final BlockReference towardZero;
    private final List<Rational> elements;

    public StochasticBlockReference(List<Rational> elements, List<Rational> scales, String rule) {
        this.towardZero = new BlockReference(elements, scales, rule, RoundingMode.TOWARD_ZERO);
        this.elements = new ArrayList<>(elements);
        this.elements.sort(Comparator.naturalOrder());
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
            Rational high = elements.stream().filter(e -> e.compareTo(low) > 0).findFirst().orElse(null);
            if (high == null || q.compareTo(high) >= 0) {
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
