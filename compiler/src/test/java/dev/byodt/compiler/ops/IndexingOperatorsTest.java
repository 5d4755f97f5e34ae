package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

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

    @Test
    void argMaxAndArgMinLetTheFirstNaNWinOrTheLastWithSelectLastIndex() {
        Tensor x = floats(3, Float.NaN, 7, Float.NaN, -1);
        assertArrayEquals(new long[] {1}, new NodeCase("ArgMax", 13).input(x).runOne().toLongArray());
        assertArrayEquals(new long[] {1}, new NodeCase("ArgMin", 13).input(x).runOne().toLongArray());
        assertArrayEquals(new long[] {3}, new NodeCase("ArgMax", 13).attr("select_last_index", 1).input(x).runOne().toLongArray());
        Tensor ties = floats(new long[] {2, 3}, 5, 1, 5, -2, 4, -2);
        assertArrayEquals(new long[] {0, 1}, new NodeCase("ArgMax", 13).attr("axis", 1).attr("keepdims", 0).input(ties).runOne().toLongArray());
        assertArrayEquals(new long[] {2, 1}, new NodeCase("ArgMax", 13).attr("axis", -1).attr("keepdims", 0)
            .attr("select_last_index", 1).input(ties).runOne().toLongArray());
        assertArrayEquals(new long[] {1, 0}, new NodeCase("ArgMin", 13).attr("axis", 1).attr("keepdims", 0).input(ties).runOne().toLongArray());
    }

    @Test
    void argMaxOfIntegersComparesThemExactly() {
        long big = 1L << 60;
        Tensor y = new NodeCase("ArgMax", 13).input(longs(big, big + 1, big)).runOne();
        assertArrayEquals(new long[] {1}, y.toLongArray());
    }

    @Test
    void topKSortsNaNFirstAmongTheLargestAndTiesByPosition() {
        Tensor x = floats(2, Float.NaN, 5, 2, 9, 5);
        List<Tensor> largest = new NodeCase("TopK", 11).outputs(2).input(x).constant(longs(4)).run();
        assertArrayEquals(new float[] {Float.NaN, 9, 5, 5}, largest.get(0).toFloatArray());
        assertArrayEquals(new long[] {1, 4, 2, 5}, largest.get(1).toLongArray());
        List<Tensor> smallest = new NodeCase("TopK", 11).attr("largest", 0).outputs(2).input(x).constant(longs(3)).run();
        assertArrayEquals(new float[] {2, 2, 5}, smallest.get(0).toFloatArray());
        assertArrayEquals(new long[] {0, 3, 2}, smallest.get(1).toLongArray());
        List<Tensor> legacy = new NodeCase("TopK", 1).attr("k", 1L).outputs(2).input(longs(new long[] {2, 2}, 4, 8, 6, -3)).run();
        assertArrayEquals(new long[] {8, 6}, legacy.get(0).toLongArray());
        assertArrayEquals(new long[] {1, 0}, legacy.get(1).toLongArray());
    }

    @Test
    void topKNeedsItsKAtCompileTime() {
        ByodtException e = assertThrows(ByodtException.class,
            () -> new NodeCase("TopK", 11).outputs(2).input(floats(1, 2)).input(longs(1)).run());
        assertTrue(e.getMessage().startsWith("TopK node 'topk': K input 'in1' must be known at compile time"), e.getMessage());
    }

    @Test
    void oneHotPutsOnWhereEachIndexPointsAndOffElsewhere() {
        // -1 counts from the end; 3 and -4 are outside [-depth, depth) and give a row of "off".
        Tensor y = new NodeCase("OneHot", 11).input(longs(1, -1, 3, -4)).constant(longs(new long[0], 3))
            .input(floats(0.5f, 9)).runOne();
        assertArrayEquals(new long[] {4, 3}, y.shape());
        assertArrayEquals(new float[] {0.5f, 9, 0.5f, 0.5f, 0.5f, 9, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}, y.toFloatArray());
        Tensor alongFirst = new NodeCase("OneHot", 11).attr("axis", 0).input(floats(2.7f, 0)).constant(floats(new long[0], 3))
            .input(longs(0, 1)).runOne();
        assertArrayEquals(new long[] {3, 2}, alongFirst.shape());
        assertArrayEquals(new long[] {0, 1, 0, 0, 1, 0}, alongFirst.toLongArray());
    }

    @Test
    void scatterElementsCombinesDuplicatesInIndexOrder() {
        Tensor data = floats(new long[] {2, 2}, 1, 2, 3, 4);
        Tensor indices = longs(new long[] {2, 2}, 1, 1, 0, 0);
        Tensor updates = floats(new long[] {2, 2}, 10, 20, 30, 40);
        assertArrayEquals(new float[] {1, 20, 40, 4}, new NodeCase("ScatterElements", 13).attr("axis", 1)
            .input(data).input(indices).input(updates).runOne().toFloatArray());
        assertArrayEquals(new float[] {1, 32, 73, 4}, new NodeCase("ScatterElements", 16).attr("axis", 1).attr("reduction", "add")
            .input(data).input(indices).input(updates).runOne().toFloatArray());
        assertArrayEquals(new float[] {1, 2, 3, 4}, new NodeCase("ScatterElements", 18).attr("axis", 1).attr("reduction", "min")
            .input(data).input(indices).input(updates).runOne().toFloatArray());
        assertArrayEquals(new float[] {1, 20, 40, 4}, new NodeCase("ScatterElements", 18).attr("axis", 1).attr("reduction", "max")
            .input(data).input(indices).input(updates).runOne().toFloatArray());
        ByodtException e = assertThrows(ByodtException.class, () -> new NodeCase("ScatterElements", 16).attr("reduction", "max")
            .input(data).input(indices).input(updates).runOne());
        assertTrue(e.getMessage().contains("reduction"), e.getMessage());
    }

    @Test
    void scatterNdAndGatherNdAddressSlicesByTuples() {
        Tensor data = floats(new long[] {2, 2, 2}, 1, 2, 3, 4, 5, 6, 7, 8);
        Tensor slices = new NodeCase("GatherND", 13).input(data).input(longs(new long[] {2, 2}, 1, 0, 0, -1)).runOne();
        assertArrayEquals(new float[] {5, 6, 3, 4}, slices.toFloatArray());
        Tensor batched = new NodeCase("GatherND", 13).attr("batch_dims", 1).input(data).input(longs(new long[] {2, 2}, 0, 1, 1, 0))
            .runOne();
        assertArrayEquals(new float[] {2, 7}, batched.toFloatArray());
        Tensor scattered = new NodeCase("ScatterND", 16).attr("reduction", "mul").input(data)
            .input(longs(new long[] {2, 1}, 1, 1)).input(floats(new long[] {2, 2, 2}, 2, 2, 2, 2, 3, 3, 3, 3)).runOne();
        assertArrayEquals(new float[] {1, 2, 3, 4, 30, 36, 42, 48}, scattered.toFloatArray());
    }

    @Test
    void einsumCoversProductsTransposesDiagonalsAndSums() {
        Tensor a = floats(new long[] {2, 3}, 1, 2, 3, 4, 5, 6);
        Tensor b = floats(new long[] {3, 2}, 1, 0, 0, 1, 1, 1);
        assertArrayEquals(new float[] {4, 5, 10, 11}, einsum("ij,jk->ik", a, b).toFloatArray());
        assertArrayEquals(new float[] {4, 5, 10, 11}, einsum("ij,jk", a, b).toFloatArray());
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, einsum("ij->ji", a).toFloatArray());
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, einsum("ba", a).toFloatArray());
        assertArrayEquals(new float[] {21}, einsum("ij->", a).toFloatArray());
        assertArrayEquals(new float[] {5, 7, 9}, einsum("ij -> j", a).toFloatArray());
        assertArrayEquals(new float[] {14, 77}, einsum("bi,bi->b", a, a).toFloatArray());
        Tensor square = floats(new long[] {2, 2, 2}, 1, 2, 3, 4, 5, 6, 7, 8);
        assertArrayEquals(new float[] {1, 4, 5, 8}, einsum("...ii->...i", square).toFloatArray());
        assertArrayEquals(new float[] {1, 2, 3, 2, 4, 6}, einsum("i,j", floats(1, 2), floats(1, 2, 3)).toFloatArray());
        // "..." broadcasts a dimension of 1 against the other operand's.
        Tensor one = floats(new long[] {1, 2, 2}, 1, 0, 0, 1);
        assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6, 7, 8}, einsum("...ij,...jk->...ik", one, square).toFloatArray());
    }

    @Test
    void einsumOfThreeOperandsNamesTheEquation() {
        ByodtException e = assertThrows(ByodtException.class, () -> new NodeCase("Einsum", 12).attr("equation", "i,i,i->")
            .input(floats(1)).input(floats(2)).input(floats(3)).runOne());
        assertEquals("Einsum node 'einsum': equation 'i,i,i->' has 3 operands; byodt implements Einsum of one or two", e.getMessage());
    }

    @Test
    void depthToSpaceAndSpaceToDepthAreInverses() {
        float[] values = new float[16];
        for (int i = 0; i < 16; i++) values[i] = i;
        Tensor x = floats(new long[] {1, 4, 2, 2}, values);
        Tensor space = new NodeCase("DepthToSpace", 13).attr("blocksize", 2L).input(x).runOne();
        assertArrayEquals(new long[] {1, 1, 4, 4}, space.shape());
        assertArrayEquals(new float[] {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}, space.toFloatArray());
        assertArrayEquals(values, new NodeCase("SpaceToDepth", 13).attr("blocksize", 2L).input(space).runOne().toFloatArray());
        Tensor crd = new NodeCase("DepthToSpace", 13).attr("blocksize", 2L).attr("mode", "CRD").input(x).runOne();
        assertArrayEquals(new float[] {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}, crd.toFloatArray());
    }

    @Test
    void castLikeTakesTheSecondInputsType() {
        Tensor y = new NodeCase("CastLike", 15).input(floats(-2.7f, 3.9f)).input(longs(0)).runOne();
        assertEquals(ElementType.INT64, y.type());
        assertArrayEquals(new long[] {-2, 3}, y.toLongArray());
        assertArrayEquals(new float[] {7, -1}, new NodeCase("CastLike", 15).input(longs(7, -1)).input(floats(0)).runOne().toFloatArray());
    }

    @Test
    void nonZeroOfAConstantFoldsToItsCoordinates() {
        Kernel kernel = new NodeCase("NonZero", 13).constant(floats(new long[] {2, 2}, 0, 3, Float.NaN, 0)).kernel();
        assertTrue(kernel.loadedBuffers().isEmpty(), "NonZero loaded " + kernel.loadedBuffers());
        Tensor y = new NodeCase("NonZero", 13).constant(floats(new long[] {2, 2}, 0, 3, Float.NaN, 0)).runOne();
        assertArrayEquals(new long[] {2, 2}, y.shape());
        assertArrayEquals(new long[] {0, 1, 1, 0}, y.toLongArray());
        ByodtException e = assertThrows(ByodtException.class, () -> new NodeCase("NonZero", 13).input(floats(1, 0)).runOne());
        assertTrue(e.getMessage().startsWith("NonZero node 'nonzero': input 'in0' must be known at compile time"), e.getMessage());
    }

    private static Tensor einsum(String equation, Tensor... operands) {
        NodeCase node = new NodeCase("Einsum", 12).attr("equation", equation);
        for (Tensor t : operands) node.input(t);
        return node.runOne();
    }
}
