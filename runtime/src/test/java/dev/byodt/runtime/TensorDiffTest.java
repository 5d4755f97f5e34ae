package dev.byodt.runtime;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TensorDiffTest {
    private static final long[] PAIR = {2};

    @Test
    void elementsWithinAtolPlusRtolOfTheExpectedPass() {
        Tensor expected = Tensor.ofFloats(PAIR, new float[] {1, Float.NaN});
        assertTrue(TensorDiff.of(expected, Tensor.ofFloats(PAIR, new float[] {1.0001f, Float.NaN}), 1e-4, 1e-5).withinTolerance());
        TensorDiff off = TensorDiff.of(expected, Tensor.ofFloats(PAIR, new float[] {1.001f, Float.NaN}), 1e-4, 1e-5);
        assertFalse(off.withinTolerance());
        assertEquals(0, off.worstIndex());
    }

    /** A finite value where infinity is expected is the worst element, and the report points at it. */
    @Test
    void aFiniteValueWhereInfinityIsExpectedIsTheWorst() {
        Tensor expected = Tensor.ofFloats(PAIR, new float[] {0.5f, Float.POSITIVE_INFINITY});
        TensorDiff saturated = TensorDiff.of(expected, Tensor.ofFloats(PAIR, new float[] {0.5f, 57344}), 1e-4, 1e-5);
        assertFalse(saturated.withinTolerance());
        assertEquals(1, saturated.worstIndex());
        assertTrue(TensorDiff.of(expected, expected, 0, 0).withinTolerance());
    }

    /** Equal numbers in another element type or layout are still a wrong result. */
    @Test
    void elementTypeAndShapeMustAgree() {
        TensorDiff asFloats = TensorDiff.of(Tensor.ofLongs(PAIR, new long[] {3, 4}), Tensor.ofFloats(PAIR, new float[] {3, 4}), 0, 0);
        assertFalse(asFloats.withinTolerance());
        assertEquals("element type float32 differs from the expected int64", asFloats.describe());
        TensorDiff transposed = TensorDiff.of(Tensor.ofFloats(new long[] {1, 2}, new float[] {3, 4}),
            Tensor.ofFloats(new long[] {2, 1}, new float[] {3, 4}), 0, 0);
        assertFalse(transposed.withinTolerance());
        assertEquals("shape 2x1 differs from the expected 1x2", transposed.describe());
    }
}
