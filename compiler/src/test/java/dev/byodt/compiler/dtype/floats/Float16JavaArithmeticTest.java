package dev.byodt.compiler.dtype.floats;

import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.compiler.dtype.reference.Rational;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link Float16JavaArithmetic}, the checker of the exhaustive float16 test, against the exact rational
 * {@link MinifloatReference}: every value, and a million seeded pairs plus edge and tie pairs for add and mul.
 */
@Execution(ExecutionMode.CONCURRENT)
class Float16JavaArithmeticTest {
    private static final MinifloatReference FLOAT16 = MinifloatReference.ieee(5, 10);

    @Test
    void everyValueIsTheExactValue() {
        for (int a = 0; a < 1 << 16; a++) {
            assertEquals(Double.doubleToLongBits(FLOAT16.toDouble(a)), Double.doubleToLongBits(Float16JavaArithmetic.value(a)),
                "value of 0x" + Integer.toHexString(a));
        }
    }

    @Test
    void addAndMulAreTheExactResultsRoundedOnce() {
        Random random = new Random(16_2024L);
        List<int[]> pairs = new ArrayList<>();
        for (int i = 0; i < 1_000_000; i++) pairs.add(new int[]{random.nextInt(1 << 16), random.nextInt(1 << 16)});
        List<Integer> edges = edgeValues();
        for (int a : edges) for (int b : edges) pairs.add(new int[]{a, b});
        for (int i = 0; i < 200_000; i++) {
            // x plus half its ulp, and x times 1 + 2^-11 style factors: exact ties and their neighbours.
            int x = random.nextInt(1 << 16) & 0x7BFF;
            int halfUlp = Math.max(0, (x >> 10) - 11) << 10;
            pairs.add(new int[]{x, halfUlp});
            pairs.add(new int[]{x, halfUlp | 1});
            pairs.add(new int[]{x, random.nextInt(1 << 10) | (15 << 10) | (random.nextBoolean() ? 0x8000 : 0)});
            pairs.add(new int[]{x & 0x83FF, random.nextInt(1 << 16)});      // a subnormal operand
        }
        for (int[] p : pairs) {
            assertEquals(FLOAT16.add(p[0], p[1]), Float16JavaArithmetic.add(p[0], p[1]), () -> "add " + hex(p));
            assertEquals(FLOAT16.mul(p[0], p[1]), Float16JavaArithmetic.mul(p[0], p[1]), () -> "mul " + hex(p));
        }
    }

    private static List<Integer> edgeValues() {
        List<Integer> v = new ArrayList<>();
        int one = FLOAT16.round(Rational.of(1), false);
        for (int sign : new int[]{0, 0x8000}) {
            for (int magnitude : new int[]{0, 1, 2, 0x3FF, 0x400, 0x401, one, one + 1, 0x7BFE, 0x7BFF, 0x7C00, 0x7C01, 0x7E00, 0x7FFF}) {
                v.add(sign | magnitude);
            }
        }
        return v;
    }

    private static String hex(int[] pair) {
        return "0x" + Integer.toHexString(pair[0]) + ", 0x" + Integer.toHexString(pair[1]);
    }
}
