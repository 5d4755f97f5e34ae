package dev.byodt.compiler.dtype;

/**
 * The exact quotient q = numerator / denominator of two doubles, held as the double nearest to it and the sign of
 * the rest q - nearest (the sign of numerator - nearest * denominator, which one fused multiply-add gives exactly).
 * That is enough to compare q exactly with any double b: rounding to nearest is monotonic and leaves b as it is,
 * so nearest < b means q < b, and where nearest == b the rest's sign decides. Block quantization rounds every
 * weight of a model onto a grid this way, without the BigDecimal arithmetic of {@link ValueGrid}'s general
 * methods, whose cost made block datatypes the slowest to compile.
 */
record DoubleQuotient(double nearest, int restSign) {
    /**
     * Magnitudes within 2^-300 to 2^300 keep every quantity here a normal double: a nonzero rest is a multiple
     * of 2^-704 at least, so the fused multiply-add cannot round it to 0, nor the check of the product's
     * exactness its error.
     */
    private static final double SMALLEST = 0x1p-300, LARGEST = 0x1p300;

    /**
     * numerator / (denominator * factor), all positive, or null where doubles cannot hold it this way: the
     * product not a double, or a magnitude beyond 2^-300 to 2^300.
     */
    static DoubleQuotient of(double numerator, double denominator, double factor) {
        double product = denominator * factor;
        if (!inRange(numerator) || !inRange(denominator) || !inRange(factor) || !inRange(product)
            || Math.fma(denominator, factor, -product) != 0) return null;
        double nearest = numerator / product;
        if (!inRange(nearest)) return null;
        return new DoubleQuotient(nearest, (int) Math.signum(Math.fma(-nearest, product, numerator)));
    }

    private static boolean inRange(double x) { return x >= SMALLEST && x <= LARGEST; }

    /** The sign of q - b. */
    int compareTo(double b) { return nearest == b ? restSign : Double.compare(nearest, b); }

    /** floor(log2 q): nearest's exponent, one less where nearest is a power of two that q falls short of. */
    int floorLog2() {
        int exponent = Math.getExponent(nearest);
        return compareTo(Math.scalb(1.0, exponent)) < 0 ? exponent - 1 : exponent;
    }

    /**
     * q 2^k, for k that keeps nearest 2^k a normal double: scaling by a power of two commutes with rounding
     * there, so nearest 2^k is the double nearest to q 2^k, with the same rest's sign.
     */
    DoubleQuotient scaled(int k) { return new DoubleQuotient(Math.scalb(nearest, k), restSign); }
}
