package dev.byodt.compiler.dtype;

import dev.byodt.compiler.dtype.posit.PositReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.OptionalDouble;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PositScales#largestProduct}, the bound RegimeSums checks a dot product's largest operands against: sums of as
 * many terms as it was asked for, each the largest product it accepts, stay within the scales with a fraction bit
 * when the posit itself (PositReference, exact) rounds them; it accepts at least what the bound before it accepted
 * (K max|a| max|b| <= 2^(T - 2), T the highest scale whose rounding error K terms keep below half of 2^T); and it
 * refuses sums of more terms than it bounds.
 */
class PositScalesTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 37, 576, 3200, 25088})
    void theLargestAcceptedProductsSumWithinTheScalesWithAFractionBit(int terms) {
        PositScales scales = new PositScales(16, 2);
        PositReference posit = new PositReference(16, 2);
        double top = Math.scalb(1.0, scales.highestScale() + 1);
        long product = posit.fromDouble(scales.largestProduct(terms).orElseThrow());
        long sum = posit.fromDouble(0);
        for (int k = 0; k < terms; k++) {
            sum = posit.add(sum, product);
            assertTrue(posit.toDouble(sum) < top, terms + " terms: after " + (k + 1) + " the sum is " + posit.toDouble(sum));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {9, 10, 12, 14, 16})
    void itAcceptsAtLeastWhatTheBoundAtTheTopScaleAccepted(int bits) {
        PositScales scales = new PositScales(bits, 2);
        for (long terms = 1; terms <= 3000; terms += terms < 100 ? 1 : 37) {
            OptionalDouble atTop = boundAtTheTopScale(scales, terms);
            if (atTop.isEmpty()) continue;
            OptionalDouble now = scales.largestProduct(terms);
            long k = terms;
            assertTrue(now.isPresent() && now.getAsDouble() >= atTop.getAsDouble(), () -> "posit" + bits + ", " + k + " terms: "
                + now + " against " + atTop);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {9, 16})
    void sumsOfTooManyTermsHaveNoBound(int bits) {
        assertFalse(new PositScales(bits, 2).largestProduct(1L << 19).isPresent());
    }

    /** The largest max|a| max|b| of the earlier check: 2^(T - 2) / K, T as above, or empty where no T had room for K roundings. */
    private static OptionalDouble boundAtTheTopScale(PositScales scales, long terms) {
        for (int top = scales.highestScale() + 1; top > scales.lowestScale(); top--) {
            if (terms * (Math.scalb(1.0, -scales.fractionBits(top - 1)) + Math.scalb(1.0, -23)) < 1) {
                return OptionalDouble.of(Math.scalb(1.0, top - 2) / terms);
            }
        }
        return OptionalDouble.empty();
    }
}
