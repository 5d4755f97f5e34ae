package dev.byodt.compiler.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Comparing float32 results with PyTorch's, which sums in another order: each element to within a tolerance. */
final class CloseFloats {
    private CloseFloats() {}

    /** Each element of {@code actual} within {@code tolerance} + {@code tolerance} * |expected| of {@code expected}'s. */
    static void assertClose(float[] expected, float[] actual, double tolerance, String what) {
        assertEquals(expected.length, actual.length, what + ": element count");
        for (int i = 0; i < expected.length; i++) {
            assertTrue(Math.abs(expected[i] - actual[i]) <= tolerance + tolerance * Math.abs(expected[i]),
                what + "[" + i + "]: expected " + expected[i] + ", got " + actual[i]);
        }
    }
}
