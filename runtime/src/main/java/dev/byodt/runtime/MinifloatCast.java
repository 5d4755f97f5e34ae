package dev.byodt.runtime;

import java.util.Arrays;

/**
 * ONNX's Cast to an 8- or 4-bit float element type, on values: which pattern a number becomes. This is the
 * definition byodt uses at its boundary ({@link ElementType#boundaryCast()}) and the one in-model casts are
 * compiled from (the compiler searches the same {@link #magnitudes} table).
 *
 * <p>Formats with fraction bits round to the nearest value, ties to the even pattern. A value beyond the
 * largest finite one (one that would round to the pattern after it, were the exponent range unbounded) and
 * an infinity become, with {@code saturate}, the largest finite value of the same sign; without it an
 * infinity where the format has one (float8e5m2) and NaN otherwise. The FNUZ formats have no -0, so a
 * negative value that rounds to zero is +0; float4e2m1 has no NaN and always saturates, and NaN becomes the
 * pattern 1000 (-0), as ONNX's reference gives it.
 *
 * <p>float8e8m0 (powers of two 2^-127..2^127, no sign, no zero) follows ONNX's reference, which reads the float32
 * bits: the sign is ignored, the exponent field is kept (so zero and float32's subnormals go to 2^-127) and
 * raised by one as the {@link E8m0Rounding} says; past 2^127 it saturates or is NaN; NaN and the infinities
 * are NaN.
 */
public final class MinifloatCast {
    /** float8e8m0's round_mode attribute of Cast. */
    public enum E8m0Rounding {
        /** Up to the next power of two unless the value is one (of the float32 subnormals, anything above 0). */
        UP,
        /** Down: the power of two of the exponent field. */
        DOWN,
        /** Up when the value is at least 1.5 times its power of two (of the subnormals, above 2^-127). */
        NEAREST;

        /** The attribute's value: "up", "down" or "nearest"; null for anything else. */
        public static E8m0Rounding of(String attribute) {
            return switch (attribute) {
                case "up" -> UP;
                case "down" -> DOWN;
                case "nearest" -> NEAREST;
                default -> null;
            };
        }
    }

    private final MinifloatFormat format;
    private final boolean saturate;
    private final E8m0Rounding e8m0Rounding;
    private final double[] magnitudes;

    public MinifloatCast(MinifloatFormat format, boolean saturate, E8m0Rounding e8m0Rounding) {
        this.format = format;
        this.saturate = saturate || format.specials() == MinifloatFormat.Specials.NONE;
        this.e8m0Rounding = e8m0Rounding;
        this.magnitudes = magnitudesOf(format);
    }

    public MinifloatFormat format() { return format; }

    public boolean saturates() { return saturate; }

    public E8m0Rounding e8m0Rounding() { return e8m0Rounding; }

    /** float8e8m0: powers of two only, rounded by {@link E8m0Rounding} rather than to nearest. */
    public boolean isPowersOfTwo() { return format.fractionBits() == 0; }

    /**
     * The values of the non-negative finite patterns 0 .. {@link MinifloatFormat#largestFinite()}, in increasing
     * order, then the value the next pattern would have with one more exponent (the largest value plus its ulp),
     * the boundary of overflow. Every one is exactly a float32.
     */
    public double[] magnitudes() { return magnitudes.clone(); }

    /** The pattern a value becomes. */
    public int encode(double v) {
        return isPowersOfTwo() ? encodePowerOfTwo((float) v) : encodeNearest(v);
    }

    private int encodeNearest(double v) {
        if (Double.isNaN(v)) return nanPattern();
        boolean negative = Math.copySign(1.0, v) < 0;
        double a = Math.abs(v);
        int largest = format.largestFinite();
        int lo = largestAtMost(a);
        int k = lo;
        if (lo <= largest) {
            double midpoint = (magnitudes[lo] + magnitudes[lo + 1]) / 2;
            if (a > midpoint || (a == midpoint && lo % 2 == 1)) k++;
        }
        if (k > largest) {
            if (saturate) k = largest;
            else return format.specials() == MinifloatFormat.Specials.IEEE ? (largest + 1) | sign(negative) : nanPattern();
        }
        if (k == 0 && format.specials() == MinifloatFormat.Specials.FNUZ) return 0;
        return k | sign(negative);
    }

    private int encodePowerOfTwo(float f) {
        int nan = format.largestFinite() + 1;
        if (Float.isNaN(f) || Float.isInfinite(f)) return nan;
        float a = Math.abs(f);
        int k;
        if (a < Float.MIN_NORMAL) {
            k = switch (e8m0Rounding) {
                case UP -> a > 0 ? 1 : 0;
                case DOWN -> 0;
                case NEAREST -> a > Math.scalb(1f, -127) ? 1 : 0;
            };
        } else {
            int exponentField = Math.getExponent(a) + format.bias();
            float power = Math.scalb(1f, Math.getExponent(a));
            k = exponentField + switch (e8m0Rounding) {
                case UP -> a > power ? 1 : 0;
                case DOWN -> 0;
                case NEAREST -> a >= 1.5f * power ? 1 : 0;
            };
        }
        return k > format.largestFinite() ? (saturate ? format.largestFinite() : nan) : k;
    }

    /** The largest index of {@link #magnitudes} whose value is at most a (0 when a is below them all). */
    private int largestAtMost(double a) {
        int found = Arrays.binarySearch(magnitudes, a);
        if (found >= 0) return found;
        return Math.max(-found - 2, 0);
    }

    private int sign(boolean negative) { return negative ? format.signBit() : 0; }

    /**
     * The NaN a cast produces: float8e5m2's 0.11111.10 (as IEEE's quiet NaN), the one NaN of the FN and FNUZ
     * formats, and for float4e2m1, which has none, 1000.
     */
    private int nanPattern() {
        return switch (format.specials()) {
            case IEEE -> format.largestFinite() + 1 + (1 << (format.fractionBits() - 1));
            case FN -> format.largestFinite() + 1;
            case FNUZ, NONE -> format.signBit();
        };
    }

    private static double[] magnitudesOf(MinifloatFormat format) {
        int largest = format.largestFinite();
        double[] values = new double[largest + 2];
        for (int p = 0; p <= largest; p++) values[p] = format.value(p);
        values[largest + 1] = 2 * values[largest] - values[largest - 1];
        return values;
    }
}
