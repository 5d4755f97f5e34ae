package dev.byodt.compiler.dtype.posit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link PositTableRounding}, the exhaustive tests' checker, against the exact reference on a seeded sample of
 * every instance it serves (9 <= N <= 16, es 0..3): random pairs, pairs of far-apart magnitudes (where the
 * checker answers the larger operand without adding), pairs just at the edge of that rule, and products.
 */
class PositTableRoundingTest {
    static final int RANDOM_PAIRS = 3000;
    static final int FAR_PAIRS = 2000;

    static Stream<Arguments> instances() {
        return IntStream.rangeClosed(9, 16).boxed().flatMap(n -> IntStream.rangeClosed(0, 3).mapToObj(es -> Arguments.of(n, es)));
    }

    @ParameterizedTest(name = "posit{0}es{1}")
    @MethodSource("instances")
    void agreesWithTheExactReference(int n, int es) {
        PositReference ref = new PositReference(n, es);
        PositTableRounding table = new PositTableRounding(n, es);
        Random random = new Random(31L * n + es);
        int patterns = 1 << n;
        for (int i = 0; i < RANDOM_PAIRS; i++) {
            int a = random.nextInt(patterns), b = random.nextInt(patterns);
            assertEquals(ref.add(a, b), table.add(a, b), "add " + a + " " + b);
            assertEquals(ref.sub(a, b), table.sub(a, b), "sub " + a + " " + b);
            assertEquals(ref.mul(a, b), table.mul(a, b), "mul " + a + " " + b);
        }
        // A larger operand and a smaller one (a magnitude pattern below it, often by far), of either sign: the
        // far-apart rule's cases and others; and the two smaller magnitudes on either side of the rule's limit.
        int maxPos = (int) ref.maxPos(), limitsInside = 0;
        for (int i = 0; i < FAR_PAIRS; i++) {
            int x = 1 + random.nextInt(maxPos);
            int y = random.nextInt(x) >> random.nextInt(random.nextBoolean() ? n : 3);
            int lo = 0, hi = x; // farApart(x, lo), not farApart(x, hi)
            while (hi - lo > 1) {
                int mid = (lo + hi) >>> 1;
                if (table.farApart(x, mid)) lo = mid; else hi = mid;
            }
            if (lo > 0 && hi < x) limitsInside++;
            for (int smaller : new int[]{y, lo, hi}) {
                int a = random.nextBoolean() ? x : (int) ref.negate(x);
                int b = random.nextBoolean() ? smaller : (int) ref.negate(smaller);
                assertEquals(ref.add(a, b), table.add(a, b), "add " + a + " " + b);
                assertEquals(ref.add(b, a), table.add(b, a), "add " + b + " " + a);
            }
        }
        // Both rules at work: for many x (a fifth or more), some nonzero smaller operands are far apart, some not.
        assertTrue(limitsInside > FAR_PAIRS / 5, "the far-apart limit lies strictly inside for only " + limitsInside + " of " + FAR_PAIRS);
    }
}
