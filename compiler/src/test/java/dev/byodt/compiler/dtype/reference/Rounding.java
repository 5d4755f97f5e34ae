package dev.byodt.compiler.dtype.reference;

import java.math.BigInteger;

/** Rounding an exact rational to an integer, by the rules the formats use. */
public final class Rounding {
    private Rounding() {}

    /** x rounded to the nearest integer, ties to the even integer. */
    public static BigInteger nearestEven(Rational x) {
        BigInteger[] qr = x.num().divideAndRemainder(x.den());
        BigInteger floor = x.num().signum() < 0 && qr[1].signum() != 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
        // fraction = x - floor, in [0, 1): compare 2 * fraction with 1.
        BigInteger twiceFractionNum = x.num().subtract(floor.multiply(x.den())).shiftLeft(1);
        int c = twiceFractionNum.compareTo(x.den());
        if (c > 0 || (c == 0 && floor.testBit(0))) return floor.add(BigInteger.ONE);
        return floor;
    }

    /** The integer part (toward zero). */
    public static BigInteger towardZero(Rational x) {
        return x.num().divide(x.den());
    }

    /** The largest integer <= x. */
    public static BigInteger floor(Rational x) {
        BigInteger[] qr = x.num().divideAndRemainder(x.den());
        return x.num().signum() < 0 && qr[1].signum() != 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
    }

    /** The smallest integer >= x. */
    public static BigInteger ceil(Rational x) { return floor(x.negate()).negate(); }
}
