package dev.byodt.compiler.dtype;

/**
 * The magnitudes the dot products' checks take of an operand's tensor (RegimeSums, over {@link PositScales}): what
 * tests compute to say which side of a check their operands fall on.
 */
public final class OperandMagnitudes {
    private OperandMagnitudes() {}

    /** The least nonzero magnitude, +inf for none. */
    public static double least(float[] values) {
        double least = Double.POSITIVE_INFINITY;
        for (float v : values) if (v != 0) least = Math.min(least, Math.abs(v));
        return least;
    }

    /** The largest magnitude, NaN where a value is NaN. */
    public static double largest(float[] values) {
        double largest = 0;
        for (float v : values) largest = Float.isNaN(v) ? Double.NaN : Math.max(largest, Math.abs(v));
        return largest;
    }
}
