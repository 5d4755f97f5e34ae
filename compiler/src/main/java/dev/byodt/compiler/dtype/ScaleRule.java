package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a block format chooses a block's shared scale X from a = amax / t, the block's largest magnitude over the
 * tensor scale t (1 without one), in exact arithmetic. The power-of-two rules give 2^k clamped to the powers of
 * two the scale datatype holds; {@code rceil} and {@code nearest} round onto the scale datatype's grid. emax is
 * floor(log2(largest element)) (a posit's: maxpos's exponent), M the element's fraction bits in the binade of its
 * largest value (a posit's: 0). docs/datatypes.md, "Block formats", says where each comes from and how each reads
 * for posits.
 */
public enum ScaleRule {
    /** OCP MX v1.0 section 6.3: k = floor(log2 a) - emax; elements above the largest are clipped to it. */
    FLOOR {
        @Override
        double scale(double amax, double tensorScale, ElementGrid element, ValueGrid scale) {
            return powerOfTwo(ValueGrid.floorLog2(amax, tensorScale, 1) - element.maxExponent(), scale);
        }
    },
    /** torchao's CEIL: k = ceil(log2 a) - emax. */
    CEIL {
        @Override
        double scale(double amax, double tensorScale, ElementGrid element, ValueGrid scale) {
            return powerOfTwo(ValueGrid.ceilLog2(amax, tensorScale, 1) - element.maxExponent(), scale);
        }
    },
    /**
     * torchao's EVEN: a rounded to M + 1 significant bits, halves up (torchao adds half a step to the float32
     * bits), then the floor rule: k grows by one when that rounding carries a into the next binade.
     */
    EVEN {
        @Override
        double scale(double amax, double tensorScale, ElementGrid element, ValueGrid scale) {
            int floor = ValueGrid.floorLog2(amax, tensorScale, 1);
            double carryThreshold = 2 - Math.scalb(1.0, -element.largestBinadeFractionBits() - 1);
            boolean carries = ValueGrid.compareWithPowerOfTwo(amax, tensorScale, carryThreshold, floor) >= 0;
            return powerOfTwo(floor + (carries ? 1 : 0) - element.maxExponent(), scale);
        }
    },
    /** NVIDIA's RCEIL (cuBLAS, TransformerEngine): the smallest scale value >= a / largest element, so nothing clips. */
    RCEIL {
        @Override
        double scale(double amax, double tensorScale, ElementGrid element, ValueGrid scale) {
            return scale.round(amax, tensorScale, element.largest(), ValueGrid.Direction.UP);
        }
    },
    /**
     * The smallest power of two with a / X at most halfway between the largest element and the step beyond it:
     * the block maximum is clipped by at most half a step, no more than rounding would move it.
     */
    MIDMAX {
        @Override
        double scale(double amax, double tensorScale, ElementGrid element, ValueGrid scale) {
            return powerOfTwo(ValueGrid.ceilLog2(amax, tensorScale, element.midpointAboveLargest()), scale);
        }
    },
    /**
     * NVIDIA's NVFP4: a / largest element rounded to the nearest scale value, ties to even; never to 0 (a block
     * that small under its tensor scale gets the smallest positive scale).
     */
    NEAREST {
        @Override
        double scale(double amax, double tensorScale, ElementGrid element, ValueGrid scale) {
            double nearest = scale.round(amax, tensorScale, element.largest(), ValueGrid.Direction.NEAREST_EVEN);
            return Math.max(nearest, scale.smallest());
        }
    };

    /** Whether the rule chooses powers of two only (floor, ceil, even, midmax), not any value of the scale datatype. */
    public boolean powersOfTwo() { return this != RCEIL && this != NEAREST; }

    /** The scale for a block whose largest magnitude {@code amax} is positive and finite. */
    abstract double scale(double amax, double tensorScale, ElementGrid element, ValueGrid scale);

    /** What users write: floor, ceil, even, rceil, midmax, nearest. */
    public String optionName() { return name().toLowerCase(Locale.ROOT); }

    public static ScaleRule parse(String text) {
        for (ScaleRule rule : values()) {
            if (rule.optionName().equals(text)) return rule;
        }
        throw new ByodtException("unknown scale rule '" + text + "' (" + names() + ")");
    }

    public static String names() { return Arrays.stream(values()).map(ScaleRule::optionName).collect(Collectors.joining(", ")); }

    private static double powerOfTwo(int exponent, ValueGrid scale) {
        return Math.scalb(1.0, Math.clamp(exponent, scale.smallestExponent(), scale.maxExponent()));
    }
}
