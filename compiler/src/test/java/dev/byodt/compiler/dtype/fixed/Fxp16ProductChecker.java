package dev.byodt.compiler.dtype.fixed;

/**
 * The product of fxp16_P with the default rules (round to nearest, ties to even; saturate), fast enough for
 * all 2^32 pairs and written from the rule, independently of fixed.c: the exact product of the two integers
 * as a long, its quotient by 2^P toward minus infinity and the remainder, one step up when the remainder is
 * more than half, or exactly half and the quotient odd, then clamped to the 16-bit range.
 */
final class Fxp16ProductChecker {
    private final long unit;
    private final long half;

    Fxp16ProductChecker(int p) {
        this.unit = 1L << p;
        this.half = unit / 2;   // 0 for P = 0, where every remainder is 0 and nothing rounds
    }

    /** The product of two 16-bit patterns (in the low 16 bits of each int), as a 16-bit pattern. */
    int mul(int a, int b) {
        long product = (long) (short) a * (short) b;
        long quotient = Math.floorDiv(product, unit);
        long remainder = Math.floorMod(product, unit);
        boolean up = half > 0 && (remainder > half || remainder == half && (quotient & 1) == 1);
        long rounded = quotient + (up ? 1 : 0);
        return (int) Math.max(Short.MIN_VALUE, Math.min(Short.MAX_VALUE, rounded)) & 0xFFFF;
    }
}
