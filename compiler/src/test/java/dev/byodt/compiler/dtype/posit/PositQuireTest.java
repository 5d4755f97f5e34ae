package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.harness.NativeLibrary;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Exact accumulation: seeded random dot products and sums of 1 to 1000 terms, whose quire must hold exactly the
 * sum of the exact products (two's complement, least significant bit minPos^2) and round once to the reference's
 * rounding of that exact sum; NaR anywhere makes the result NaR.
 */
@Execution(ExecutionMode.CONCURRENT)
class PositQuireTest {
    @Test
    void dotProductsAndSumsAreExactThenRoundedOnce() {
        int[][] formats = {{8, 2}, {8, 0}, {16, 2}, {16, 1}, {16, 3}, {32, 2}, {12, 3}, {5, 1}, {20, 3}, {32, 0}};
        for (int[] format : formats) {
            PositReference ref = new PositReference(format[0], format[1]);
            try (PositLibrary lib = PositLibrary.compile(format[0], format[1])) {
                checkRandomDotProducts(lib, ref, new Random(format[0] * 10L + format[1]));
            }
        }
    }

    /** 20 dot products and sums of each length from 1 to 1000, and NaR in each. */
    static void checkRandomDotProducts(PositLibrary lib, PositReference ref, Random random) {
        for (int length : new int[]{1, 2, 3, 7, 64, 300, 1000}) check(lib, ref, random, length, 20);
        checkNaR(lib, ref);
    }

    static void check(PositLibrary lib, PositReference ref, Random random, int length, int groups) {
        int count = length * groups;
        long[] a = new long[count], b = new long[count];
        for (int i = 0; i < count; i++) {
            a[i] = finite(ref, random);
            // Some groups pair each product with its negation, so large terms cancel and the small ones decide.
            b[i] = (i / length) % 4 == 3 && i % 2 == 1 ? ref.negate(b[i - 1]) : finite(ref, random);
            if ((i / length) % 4 == 3 && i % 2 == 1) a[i] = a[i - 1];
        }
        NativeLibrary.Accumulated dots = lib.lib.dot(lib.storage(a), lib.storage(b), length);
        NativeLibrary.Accumulated sums = lib.lib.sum(lib.storage(a), length);
        int bits = PositLibrary.accumulatorBits(lib.n, lib.es);
        int lsbScale = -2 * ((lib.n - 2) << lib.es);
        for (int g = 0; g < groups; g++) {
            Exact dot = Exact.ZERO, sum = Exact.ZERO;
            for (int i = g * length; i < (g + 1) * length; i++) {
                dot = dot.add(ref.value(a[i]).multiply(ref.value(b[i])));
                sum = sum.add(ref.value(a[i]));
            }
            String what = lib + " group " + g + " of length " + length;
            assertEquals(fixedPoint(dot, lsbScale, bits), words(dots.accumulators()[g]), what + ": dot quire");
            assertEquals(lib.storage(ref.round(dot)), dots.rounded()[g], what + ": dot rounded");
            assertEquals(fixedPoint(sum, lsbScale, bits), words(sums.accumulators()[g]), what + ": sum quire");
            assertEquals(lib.storage(ref.round(sum)), sums.rounded()[g], what + ": sum rounded");
        }
        System.out.println(lib + " quire: " + groups + " dot products and sums of length " + length + " exact");
    }

    static void checkNaR(PositLibrary lib, PositReference ref) {
        long one = 1L << (ref.n - 2);
        long[] a = {one, ref.nar(), one, one}, b = {one, one, ref.maxPos(), ref.negate(ref.maxPos())};
        NativeLibrary.Accumulated dots = lib.lib.dot(lib.storage(a), lib.storage(b), 4);
        assertEquals(lib.storage(ref.nar()), dots.rounded()[0], lib + ": NaR in a dot product");
        NativeLibrary.Accumulated sums = lib.lib.sum(lib.storage(new long[]{one, one, ref.nar(), one}), 4);
        assertEquals(lib.storage(ref.nar()), sums.rounded()[0], lib + ": NaR in a sum");
    }

    /** Mostly values near 1 (where products do not saturate), some anywhere in the range, some zeros. */
    static long finite(PositReference ref, Random random) {
        long p;
        do {
            p = switch (random.nextInt(8)) {
                case 0 -> random.nextLong() & ref.mask();
                case 1 -> 0;
                default -> ((1L << (ref.n - 2)) + random.nextInt(1 << Math.min(ref.n - 2, 12)) - (1L << Math.min(ref.n - 3, 11))
                    + (random.nextBoolean() ? 0 : (1L << (ref.n - 1)))) & ref.mask();
            };
        } while (ref.isNar(p));
        return p;
    }

    /** value / 2^lsbScale as a two's complement integer of {@code bits} bits (it must be an integer). */
    static BigInteger fixedPoint(Exact value, int lsbScale, int bits) {
        Exact scaled = value.multiply(Exact.dyadic(BigInteger.ONE, -lsbScale));
        BigInteger[] qr = scaled.num().divideAndRemainder(scaled.den());
        assertEquals(BigInteger.ZERO, qr[1], "the exact sum is a multiple of minPos^2");
        return qr[0].signum() < 0 ? qr[0].add(BigInteger.ONE.shiftLeft(bits)) : qr[0];
    }

    /** Little-endian 64-bit words as an unsigned integer. */
    static BigInteger words(long[] words) {
        BigInteger v = BigInteger.ZERO;
        for (int i = words.length - 1; i >= 0; i--) {
            v = v.shiftLeft(64).add(new BigInteger(Long.toUnsignedString(words[i])));
        }
        return v;
    }
}
