package dev.byodt.compiler.ops;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shape and indexing operators where the ONNX node cases do not reach: element types the cases lack,
 * run-time inputs, attributes and the errors for inputs that must be known at compile time. Expected values
 * are written out by hand from the ONNX definitions.
 */
class IndexingOperatorsTest {
    @ParameterizedTest
    @CsvSource({
        "0,0, 1;3;6;10;  5;11;18;26",
        "1,0, 0;1;3;6;   0;5;11;18",
        "0,1, 10;9;7;4;  26;21;15;8",
        "1,1, 9;7;4;0;   21;15;8;0"})
    void cumSumAlongTheLastAxisInEveryMode(int exclusive, int reverse, String expected) {
        Tensor x = floats(new long[] {2, 4}, 1, 2, 3, 4, 5, 6, 7, 8);
        Tensor y = new NodeCase("CumSum", 14).attr("exclusive", exclusive).attr("reverse", reverse)
            .input(x).constant(longs(-1)).runOne();
        float[] want = new float[8];
        String[] parts = expected.replace(" ", "").split(";");
        for (int i = 0; i < 8; i++) want[i] = Float.parseFloat(parts[i]);
        assertArrayEquals(want, y.toFloatArray());
    }

    @Test
    void cumSumOfIntegersAlongTheFirstAxisIsExact() {
        long big = 1L << 60;
        Tensor y = new NodeCase("CumSum", 14).input(longs(new long[] {3, 1}, big, 1, 2)).constant(longs(0)).runOne();
        assertArrayEquals(new long[] {big, big + 1, big + 3}, y.toLongArray());
    }

    @Test
    void cumSumAxisMustBeKnownAtCompileTime() {
        ByodtException e = assertThrows(ByodtException.class,
            () -> new NodeCase("CumSum", 14).input(floats(1, 2)).input(longs(0)).runOne());
        assertEquals("CumSum node 'cumsum': axis input 'in1' must be known at compile time (byodt compiles static shapes;"
            + " fix it with --bind in1=FILE.pb)", e.getMessage());
    }

    @Test
    void triluTakesItsDiagonalOffsetAtRunTime() {
        Tensor x = floats(new long[] {3, 3}, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertArrayEquals(new float[] {0, 2, 3, 0, 0, 6, 0, 0, 0},
            new NodeCase("Trilu", 14).input(x).input(longs(new long[0], 1)).runOne().toFloatArray());
        assertArrayEquals(new float[] {1, 0, 0, 4, 5, 0, 7, 8, 9},
            new NodeCase("Trilu", 14).attr("upper", 0).input(x).runOne().toFloatArray());
    }

    @Test
    void tileAndExpandCopyIntegersUnchanged() {
        long big = (1L << 62) + 3;
        assertArrayEquals(new long[] {big, -1, big, -1, big, -1, big, -1},
            new NodeCase("Tile", 13).input(longs(new long[] {1, 2}, big, -1)).constant(longs(2, 2)).runOne().toLongArray());
        assertArrayEquals(new long[] {big, big, -1, -1},
            new NodeCase("Expand", 13).input(longs(new long[] {2, 1}, big, -1)).constant(longs(1, 2)).runOne().toLongArray());
    }

    @Test
    void rangeCountsTowardLimitExclusive() {
        Tensor y = new NodeCase("Range", 11).constant(longs(new long[0], 10)).constant(longs(new long[0], 1))
            .constant(longs(new long[0], -3)).runOne();
        assertArrayEquals(new long[] {10, 7, 4}, y.toLongArray());
        Tensor empty = new NodeCase("Range", 11).constant(floats(new long[0], 1)).constant(floats(new long[0], 0))
            .constant(floats(new long[0], 0.5f)).runOne();
        assertEquals(0, empty.elementCount());
        Tensor halves = new NodeCase("Range", 11).constant(floats(new long[0], 1)).constant(floats(new long[0], 2.6f))
            .constant(floats(new long[0], 0.5f)).runOne();
        assertArrayEquals(new float[] {1, 1.5f, 2, 2.5f}, halves.toFloatArray());
    }

    @Test
    void rangeLimitMustBeKnownAtCompileTime() {
        ByodtException e = assertThrows(ByodtException.class, () -> new NodeCase("Range", 11).constant(longs(new long[0], 0))
            .input(longs(new long[0], 5)).constant(longs(new long[0], 1)).runOne());
        assertTrue(e.getMessage().startsWith("Range node 'range': limit input 'in1' must be known at compile time"), e.getMessage());
    }
}
