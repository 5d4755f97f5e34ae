package dev.byodt.compiler.dtype.posit;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;

import static org.junit.jupiter.api.Assertions.*;

/** The reference itself against facts from the posit standard (2022), so that the library is checked against something right. */
class PositReferenceTest {
    static Exact pow2(int e) { return Exact.dyadic(BigInteger.ONE, e); }

    @Test
    void rangeOfPositsWithTwoExponentBits() {
        PositReference p16 = new PositReference(16, 2);
        assertEquals(pow2(-56), p16.value(0x0001), "posit16 minPos = 2^(-4n+8)");
        assertEquals(pow2(56), p16.value(0x7FFF), "posit16 maxPos = 2^(4n-8)");
        assertEquals(Exact.ONE, p16.value(0x4000));
        assertEquals(Exact.of(-1), p16.value(0xC000));
        PositReference p32 = new PositReference(32, 2);
        assertEquals(pow2(120), p32.value(0x7FFFFFFFL));
        PositReference p8 = new PositReference(8, 2);
        assertEquals(pow2(24), p8.value(0x7F));
    }

    @Test
    void posit8RoundsGeometricallyWhereExponentBitsAreCutOff() {
        PositReference p8 = new PositReference(8, 2);
        long rounded = p8.fromDouble(144179.2);
        assertEquals(Exact.of(262144), p8.value(rounded), "144179.2 lies above the midpoint 2^17 of 2^16 and 2^18");
        assertEquals(Exact.of(65536), p8.value(p8.fromDouble(131072)), "the midpoint itself goes to the even pattern");
        assertEquals(Exact.of(65536), p8.value(p8.fromDouble(131071.9)));
    }

    @Test
    void neverRoundsToZeroOrNaR() {
        PositReference p8 = new PositReference(8, 2);
        assertEquals(1, p8.fromDouble(1e-300));
        assertEquals(0xFF, p8.fromDouble(-1e-300));
        assertEquals(0x7F, p8.fromDouble(1e300));
        assertEquals(0x81, p8.fromDouble(-1e300));
        assertEquals(0x80, p8.fromDouble(Double.NaN));
        assertEquals(0x80, p8.fromDouble(Double.NEGATIVE_INFINITY));
        assertEquals(0, p8.fromDouble(-0.0));
    }

    @Test
    void posit8WithoutExponentBitsHasUniformSteps() {
        // es = 0: 0x40 = 1, 0x60 = 2, 0x50 = 1.5, 0x01 = 2^-6, 0x20 = 0.5.
        PositReference p = new PositReference(8, 0);
        assertEquals(Exact.ONE, p.value(0x40));
        assertEquals(Exact.of(2), p.value(0x60));
        assertEquals(Exact.of(3).divide(Exact.of(2)), p.value(0x50));
        assertEquals(pow2(-6), p.value(0x01));
        assertEquals(Exact.of(1).divide(Exact.of(2)), p.value(0x20));
        // 1 + 1/64 is the midpoint of 1 and 1 + 1/32: ties to 0x40 (even), just above goes to 0x41.
        assertEquals(0x40, p.fromDouble(1 + 1.0 / 64));
        assertEquals(0x41, p.fromDouble(1 + 1.0 / 64 + 1e-9));
        assertEquals(0x42, p.fromDouble(1 + 3.0 / 64), "tie between 0x41 and 0x42 goes to 0x42");
    }

    @Test
    void valuesIncreaseWithTheSignedPattern() {
        for (int es = 0; es <= 3; es++) {
            PositReference p = new PositReference(9, es);
            for (long s = -(1L << 8) + 2; s < (1L << 8) - 1; s++) {
                long a = s & p.mask(), b = (s + 1) & p.mask();
                assertTrue(p.value(a).compareTo(p.value(b)) < 0, "posit9es" + es + " at " + s);
            }
        }
    }

    @Test
    void arithmeticIsExactThenRoundedOnce() {
        PositReference p16 = new PositReference(16, 2);
        long one = 0x4000, three = p16.fromDouble(3);
        assertEquals(Exact.of(4), p16.value(p16.add(one, three)));
        assertEquals(p16.fromDouble(1.0 / 3), p16.div(one, three));
        assertEquals(p16.fromDouble(Math.sqrt(3)), p16.sqrt(three));
        assertEquals(p16.nar(), p16.div(one, 0));
        assertEquals(p16.nar(), p16.sqrt(p16.negate(one)));
        assertEquals(1, p16.mul(1, 1), "minPos^2 stays minPos");
    }
}
