package dev.byodt.compiler.ops;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * {@link Broadcasting#coalesced}: neighbouring dimensions merge only where every operand holds both or stretches
 * both, so that the merged shapes index the same elements row-major.
 */
class BroadcastingTest {
    @Test
    void aSqueezeAndExcitationScaleRunsAlongWholeChannels() {
        assertCoalesced(new long[][] {{64, 49}, {64, 49}, {64, 1}},
            s(1, 64, 7, 7), s(1, 64, 7, 7), s(1, 64, 1, 1));
    }

    @Test
    void operandsOfOneShapeAreOneRun() {
        assertCoalesced(new long[][] {{24}, {24}, {24}}, s(2, 3, 4), s(2, 3, 4), s(2, 3, 4));
    }

    @Test
    void dimensionsThatOperandsStretchDifferentlyStayApart() {
        assertCoalesced(new long[][] {{2, 3, 4}, {1, 3, 4}, {2, 1, 4}}, s(2, 3, 4), s(3, 4), s(2, 1, 4));
    }

    @Test
    void aScalarStretchesOverTheWholeOutput() {
        assertCoalesced(new long[][] {{6}, {6}, {1}}, s(2, 3), s(2, 3), s());
    }

    @Test
    void theOutputsDimensionsOfOneAreDropped() {
        assertCoalesced(new long[][] {{5, 3}, {5, 3}, {1, 3}}, s(1, 5, 1, 3), s(5, 1, 3), s(1, 1, 1, 3));
        assertCoalesced(new long[][] {{1}, {1}, {1}}, s(1, 1), s(1), s(1, 1));
    }

    private static void assertCoalesced(long[][] expected, long[] out, long[]... operands) {
        long[][] actual = Broadcasting.coalesced(out, List.of(operands));
        assertArrayEquals(expected, actual);
    }

    private static long[] s(long... dims) { return dims; }
}
