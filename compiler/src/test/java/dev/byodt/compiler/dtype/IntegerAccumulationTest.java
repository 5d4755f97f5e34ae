package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Arrays;

import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.K;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.a;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.b;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.expected;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.in;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.matMul;
import static dev.byodt.compiler.dtype.MatMulAccumulationOrderTest.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * --accumulate int:W on fixed point, the seeded MatMul of {@link MatMulAccumulationOrderTest} against a MAC
 * array written out here in BigInteger: inputs rounded to fxpN_P (nearest-even, saturated), exact products in
 * units of 2^-2P summed in the order of k into a W-bit register that wraps or saturates at each add, the sum
 * rounded to nearest-even at 2^-P and saturated to N bits.
 */
class IntegerAccumulationTest {
    @ParameterizedTest(name = "{0} --accumulate int:{1}:{2}")
    @CsvSource({"8, 4, 24, wrap", "8, 4, 24, saturate", "8, 4, 32, wrap", "8, 4, 48, saturate",
        "16, 13, 24, wrap", "16, 13, 24, saturate", "16, 13, 32, wrap", "16, 13, 32, saturate",
        "16, 13, 48, wrap", "16, 13, 48, saturate"})
    void sumsAsAMacArrayOfWBits(int n, int p, int width, String overflow) {
        AccumulationMode mode = AccumulationMode.parse("int:" + width + ":" + overflow);
        float[] expected = expected((batchA, batchB, i, j) -> {
            BigInteger acc = BigInteger.ZERO;
            for (int k = 0; k < K; k++) {
                BigInteger product = fixed(a(batchA, i, k), n, p).multiply(fixed(b(batchB, k, j), n, p));
                acc = register(acc.add(product), width, overflow.equals("saturate"));
            }
            return rounded(acc, n, p);
        });
        assertArrayEquals(expected, run(matMul(), in("fxp" + n + "_" + p, mode)));
    }

    /** The seeded sums overflow 24 bits in fxp16_13 (2^-3), so that the wrapping and saturating tests above see overflow. */
    @Test
    void theSeededSumsOverflowTwentyFourBits() {
        float[] wrapped = run(matMul(), in("fxp16_13", AccumulationMode.parse("int:24")));
        float[] saturated = run(matMul(), in("fxp16_13", AccumulationMode.parse("int:24:saturate")));
        float[] exact = run(matMul(), in("fxp16_13", AccumulationMode.EXACT));
        assertFalse(Arrays.equals(wrapped, exact));
        assertFalse(Arrays.equals(saturated, exact));
        assertFalse(Arrays.equals(wrapped, saturated));
    }

    @Test
    void aDatatypeWithoutIntegerValuesSaysSo() {
        ByodtException e = assertThrows(ByodtException.class,
            () -> run(matMul(), in("bfloat16", AccumulationMode.parse("int:32"))));
        assertEquals("datatype bfloat16 does not support --accumulate int:32:wrap (it supports [dtype, float32, exact, fused:F=..,G=..])", e.getMessage());
    }

    @Test
    void aWidthOutOfRangeOrAnUnknownOverflowIsAOneLineError() {
        assertEquals("--accumulate int:63: the width must be 2..62",
            assertThrows(ByodtException.class, () -> AccumulationMode.parse("int:63")).getMessage());
        assertEquals("unknown overflow 'clip' (wrap or saturate)",
            assertThrows(ByodtException.class, () -> AccumulationMode.parse("int:32:clip")).getMessage());
    }

    /** x rounded to the nearest multiple of 2^-p (ties to even) and saturated to n bits, in units of 2^-p. */
    private static BigInteger fixed(float x, int n, int p) {
        BigInteger units = new BigDecimal(x).multiply(BigDecimal.valueOf(2).pow(p)).setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact();
        return saturated(units, n);
    }

    private static BigInteger register(BigInteger sum, int width, boolean saturate) {
        if (saturate) return saturated(sum, width);
        BigInteger modulus = BigInteger.ONE.shiftLeft(width), half = BigInteger.ONE.shiftLeft(width - 1);
        return sum.add(half).mod(modulus).subtract(half);
    }

    private static BigInteger saturated(BigInteger v, int bits) {
        BigInteger max = BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE), min = max.negate().subtract(BigInteger.ONE);
        return v.max(min).min(max);
    }

    /** A sum in units of 2^-2p rounded to nearest-even at 2^-p, saturated to n bits, as a float. */
    private static float rounded(BigInteger acc, int n, int p) {
        BigDecimal value = new BigDecimal(acc).divide(BigDecimal.valueOf(2).pow(p));
        BigInteger units = saturated(value.setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact(), n);
        return new BigDecimal(units).divide(BigDecimal.valueOf(2).pow(p)).floatValue();
    }
}
