package dev.byodt.runtime;

import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ONNX's 8- and 4-bit float element types against references written from their specifications, apart from
 * {@link MinifloatFormat} and {@link MinifloatCast}: every pattern's value from its sign, exponent and fraction
 * fields in exact decimal arithmetic, rounding by scaling to the format's quantum at the value's binade and
 * rounding half to even (BigDecimal), and float8e8m0 as ONNX's reference computes it, from float32 bit fields.
 * Every pattern is decoded; rounding is checked on every float16 value, 200,000 seeded float32 values and the
 * edges (midpoints, the overflow boundary, zeros, infinities, NaN), saturating or not.
 */
class MinifloatElementTypesTest {
    /** A type as its specification states it: fields, bias, which patterns are NaN or infinite, what NaN becomes. */
    private record Spec(ElementType type, int exponentBits, int fractionBits, int bias, boolean signed, int nanPattern) {
        int bits() { return (signed ? 1 : 0) + exponentBits + fractionBits; }

        int signBit() { return signed ? 1 << (exponentBits + fractionBits) : 0; }

        boolean isNaN(int p) {
            return switch (type) {
                case FLOAT8E4M3FN -> (p & 0x7F) == 0x7F;
                case FLOAT8E4M3FNUZ, FLOAT8E5M2FNUZ -> p == 0x80;
                case FLOAT8E5M2 -> (p & 0x7C) == 0x7C && (p & 0x03) != 0;
                case FLOAT8E8M0 -> p == 0xFF;
                default -> false;
            };
        }

        boolean isInfinite(int p) { return type == ElementType.FLOAT8E5M2 && (p & 0x7F) == 0x7C; }

        boolean hasNegativeZero() { return type != ElementType.FLOAT8E4M3FNUZ && type != ElementType.FLOAT8E5M2FNUZ; }
    }

    private static final List<Spec> SPECS = List.of(
        new Spec(ElementType.FLOAT8E4M3FN, 4, 3, 7, true, 0x7F),
        new Spec(ElementType.FLOAT8E4M3FNUZ, 4, 3, 8, true, 0x80),
        new Spec(ElementType.FLOAT8E5M2, 5, 2, 15, true, 0x7E),
        new Spec(ElementType.FLOAT8E5M2FNUZ, 5, 2, 16, true, 0x80),
        new Spec(ElementType.FLOAT4E2M1, 2, 1, 1, true, 0x8),
        new Spec(ElementType.FLOAT8E8M0, 8, 0, 127, false, 0xFF));

    private static BigDecimal powerOfTwo(int k) {
        return k >= 0 ? new BigDecimal(BigInteger.TWO.pow(k)) : BigDecimal.ONE.divide(new BigDecimal(BigInteger.TWO.pow(-k)));
    }

    /** The exact magnitude of a pattern that is a number. */
    private static BigDecimal magnitude(Spec spec, int p) {
        int exponent = (p >> spec.fractionBits()) & ((1 << spec.exponentBits()) - 1);
        int fraction = p & ((1 << spec.fractionBits()) - 1);
        if (spec.fractionBits() > 0 && exponent == 0) {
            return BigDecimal.valueOf(fraction).multiply(powerOfTwo(1 - spec.bias() - spec.fractionBits()));
        }
        return BigDecimal.valueOf((1L << spec.fractionBits()) + fraction).multiply(powerOfTwo(exponent - spec.bias() - spec.fractionBits()));
    }

    @Test
    void everyPatternDecodesToTheValueOfItsFields() {
        for (Spec spec : SPECS) {
            int count = 1 << spec.bits();
            Tensor all = Tensor.zeros(spec.type(), new long[] {count});
            for (int p = 0; p < count; p++) all.data().set(ValueLayout.JAVA_BYTE, p, (byte) p);
            for (int p = 0; p < count; p++) {
                double got = all.getDouble(p);
                String what = spec.type() + " pattern " + Integer.toHexString(p);
                boolean negative = (p & spec.signBit()) != 0;
                if (spec.isNaN(p)) {
                    assertTrue(Double.isNaN(got), what);
                } else if (spec.isInfinite(p)) {
                    assertEquals(negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, got, what);
                } else {
                    assertEquals(0, new BigDecimal(Math.abs(got)).compareTo(magnitude(spec, p)), what + " is " + got);
                    assertEquals(negative, Math.copySign(1.0, got) < 0, what + " sign");
                }
            }
        }
    }

    /** The finite magnitudes of a type, each with its pattern. */
    private static TreeMap<BigDecimal, Integer> finite(Spec spec) {
        TreeMap<BigDecimal, Integer> values = new TreeMap<>();
        for (int p = 0; p < spec.signBit() || (!spec.signed() && p < 1 << spec.bits()); p++) {
            if (!spec.isNaN(p) && !spec.isInfinite(p)) values.put(magnitude(spec, p), p);
        }
        return values;
    }

    /** The pattern ONNX's Cast gives v: rounded to the quantum of v's binade, half to even; overflow as saturate says. */
    private static int reference(Spec spec, TreeMap<BigDecimal, Integer> finite, double v, boolean saturate) {
        if (Double.isNaN(v)) return spec.nanPattern();
        int sign = Math.copySign(1.0, v) < 0 ? spec.signBit() : 0;
        BigDecimal largest = finite.lastKey();
        BigDecimal rounded;
        if (Double.isInfinite(v)) {
            rounded = null;
        } else {
            double a = Math.abs(v);
            int binade = a == 0 ? 0 : Math.getExponent(a);
            int quantum = Math.max(binade, 1 - spec.bias()) - spec.fractionBits();
            BigDecimal steps = new BigDecimal(a).divide(powerOfTwo(quantum)).setScale(0, RoundingMode.HALF_EVEN);
            rounded = steps.multiply(powerOfTwo(quantum));
        }
        if (rounded == null || rounded.compareTo(largest) > 0) {
            if (saturate || spec.type() == ElementType.FLOAT4E2M1) return finite.lastEntry().getValue() | sign;
            return spec.type() == ElementType.FLOAT8E5M2 ? 0x7C | sign : spec.nanPattern();
        }
        Integer pattern = finite.get(rounded);
        assertNotNull(pattern, spec.type() + ": " + rounded + " is no value of the type");
        return pattern == 0 && !spec.hasNegativeZero() ? 0 : pattern | sign;
    }

    @Test
    void castsRoundToNearestEvenAndOverflowAsSaturateSays() {
        List<Double> samples = samples();
        for (Spec spec : SPECS) {
            if (spec.type() == ElementType.FLOAT8E8M0) continue;
            TreeMap<BigDecimal, Integer> finite = finite(spec);
            List<Double> all = new ArrayList<>(samples);
            List<BigDecimal> magnitudes = new ArrayList<>(finite.keySet());
            for (int i = 0; i + 1 < magnitudes.size(); i++) {
                double midpoint = magnitudes.get(i).add(magnitudes.get(i + 1)).divide(BigDecimal.TWO).doubleValue();
                for (double m : new double[] {midpoint, Math.nextUp(midpoint), Math.nextDown(midpoint)}) {
                    all.add(m);
                    all.add(-m);
                }
            }
            for (boolean saturate : new boolean[] {true, false}) {
                MinifloatCast cast = new MinifloatCast(spec.type().minifloat(), saturate, MinifloatCast.E8m0Rounding.UP);
                for (double v : all) {
                    assertEquals(reference(spec, finite, v, saturate), cast.encode(v),
                        spec.type() + (saturate ? "" : " no saturate") + " of " + v);
                }
            }
        }
    }

    @Test
    void theBoundaryKeepsInfinitiesAndEveryPatternRoundTrips() {
        for (Spec spec : SPECS) {
            for (int p = 0; p < 1 << spec.bits(); p++) {
                double value = spec.type().minifloat().value(p);
                int expected = spec.isNaN(p) ? spec.nanPattern() : p;
                assertEquals(expected, spec.type().boundaryCast().encode(value), spec.type() + " pattern " + Integer.toHexString(p));
            }
        }
    }

    /** float8e8m0 as ONNX's reference computes it: from the float32 exponent field, raised as round_mode says. */
    private static int e8m0Reference(float f, boolean saturate, MinifloatCast.E8m0Rounding mode) {
        int bits = Float.floatToRawIntBits(f);
        int exponent = bits >>> 23 & 0xFF;
        if (exponent == 0xFF) return 0xFF;
        int fraction = bits & 0x7FFFFF;
        boolean guard = (bits & 0x400000) != 0;
        boolean roundOrSticky = (bits & 0x3FFFFF) != 0;
        boolean up = switch (mode) {
            case UP -> fraction != 0;
            case DOWN -> false;
            case NEAREST -> guard && (roundOrSticky || exponent > 0);
        };
        if (up && exponent == 0xFE && saturate) up = false;
        return exponent + (up ? 1 : 0);
    }

    @Test
    void float8e8m0RoundsTheExponentFieldAsRoundModeSays() {
        List<Float> floats = new ArrayList<>();
        for (double v : samples()) floats.add((float) v);
        for (int k = -150; k <= 128; k++) {
            float power = Math.scalb(1f, k);
            for (float f : new float[] {power, Math.nextUp(power), Math.nextDown(power), 1.5f * power, Math.nextDown(1.5f * power)}) {
                floats.add(f);
                floats.add(-f);
            }
        }
        for (boolean saturate : new boolean[] {true, false}) {
            for (MinifloatCast.E8m0Rounding mode : MinifloatCast.E8m0Rounding.values()) {
                MinifloatCast cast = new MinifloatCast(ElementType.FLOAT8E8M0.minifloat(), saturate, mode);
                for (float f : floats) {
                    assertEquals(e8m0Reference(f, saturate, mode), cast.encode(f), mode + (saturate ? "" : " no saturate") + " of " + f);
                }
            }
        }
    }

    /** Every float16 value, 200,000 seeded float32 bit patterns and the edges of the float formats. */
    private static List<Double> samples() {
        List<Double> samples = new ArrayList<>();
        for (int h = 0; h < 65536; h++) samples.add((double) Float.float16ToFloat((short) h));
        Random random = new Random(17);
        for (int i = 0; i < 200_000; i++) samples.add((double) Float.intBitsToFloat(random.nextInt()));
        for (double edge : new double[] {0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, Float.MIN_NORMAL, 448, 464, 465, 480, 240, 248, 57344,
                61440, 61439, 6, 7, 8, 0.25, 0.75, 1e-7, -1e-7, 1e6}) {
            samples.add(edge);
            samples.add(-edge);
        }
        return samples;
    }
}
