package dev.byodt.runtime;

/** bfloat16, the upper half of a float32's bits: Java has float16 conversions but none for this one. */
final class Bfloat16 {
    private Bfloat16() {}

    /** The bfloat16 nearest to f, ties to even; NaN stays a (quiet) NaN of the same sign. */
    static short fromFloat(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) return (short) ((bits >>> 16) | 0x40);
        int roundingBias = 0x7FFF + ((bits >>> 16) & 1);
        return (short) ((bits + roundingBias) >>> 16);
    }
}
