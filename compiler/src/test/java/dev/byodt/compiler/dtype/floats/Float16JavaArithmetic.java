package dev.byodt.compiler.dtype.floats;

/**
 * IEEE binary16 add and multiply written with Java's own arithmetic, fast enough to check all 2^32 operand pairs
 * of the compiled library: {@link Float#float16ToFloat} gives each operand's exact value, the double sum or
 * product of two float16 values is exact (every float16 is a multiple of 2^-24 below 2^16, so a sum is such a
 * multiple below 2^17, at most 41 significant bits, and a product has at most 22), and {@link Math#rint} rounds
 * it to nearest even on the float16 grid at its exponent. Nothing here follows minifloat.c's method (float32
 * arithmetic rounded again, integer or F16C rounding); {@link Float16JavaArithmeticTest} checks it against the
 * exact rational reference. A NaN result is the library's canonical NaN 0x7E00.
 */
final class Float16JavaArithmetic {
    static final int CANONICAL_NAN = 0x7E00;
    /** Every float16's value (its bit pattern as the index). */
    private static final double[] VALUES = new double[1 << 16];

    static {
        for (int a = 0; a < VALUES.length; a++) VALUES[a] = Float.float16ToFloat((short) a);
    }

    private Float16JavaArithmetic() {}

    static double value(int a) { return VALUES[a]; }

    static int add(int a, int b) { return round(VALUES[a] + VALUES[b]); }

    static int mul(int a, int b) { return round(VALUES[a] * VALUES[b]); }

    /**
     * An exact value rounded to float16: its binade's quantum is 2^(exponent - 10), the exponent floored at
     * float16's smallest normal exponent -14 so that subnormals share 2^-24; the scaled value rounds to the nearest
     * integer (ties to even) and scales back. The result is a float16 value, or a power of two from 2^16 up,
     * which is past the overflow threshold, so converting it to float16 only encodes it (or gives infinity).
     */
    static int round(double exact) {
        if (Double.isNaN(exact)) return CANONICAL_NAN;
        if (Double.isInfinite(exact)) return Float.floatToFloat16((float) exact) & 0xFFFF;
        int exponent = Math.max(Math.getExponent(exact), -14);
        double rounded = Math.scalb(Math.rint(Math.scalb(exact, 10 - exponent)), exponent - 10);
        return Float.floatToFloat16((float) rounded) & 0xFFFF;
    }
}
