package dev.byodt.compiler.ops;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.ShapeIndexing.count;
import static dev.byodt.compiler.ops.ShapeIndexing.unflatten;
import static dev.byodt.compiler.ops.NodeCase.t16;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * ConvTranspose against ONNX's expected output for a dilated case, and against a reference written here the
 * other way round (each input element scattered into the outputs its taps reach, in double precision) for
 * strides, groups, pads, output_padding, output_shape and SAME padding; and in a 16-bit datatype against that
 * datatype's rounding of every product and sum, in the order the operator documents.
 */
class ConvTransposeTest {
    private final Random random = new Random(20261126);

    @Test
    void dilatedCaseGivesOnnxsExpectedOutput() {
        Tensor x = floats(new long[] {1, 1, 3, 3}, 3, 8, 1, 9, 5, 7, 3, 2, 6);
        Tensor w = floats(new long[] {1, 1, 2, 2}, 7, 2, 1, 9);
        Tensor y = new NodeCase("ConvTranspose", 11).attr("dilations", new long[] {2, 2}).input(x).constant(w).runOne();
        assertArrayEquals(new long[] {1, 1, 5, 5}, y.shape());
        assertArrayEquals(new float[] {21, 56, 13, 16, 2, 63, 35, 67, 10, 14, 24, 22, 76, 76, 21, 9, 5, 88, 45, 63, 3, 2,
            33, 18, 54}, y.toFloatArray());
    }

    /** The attributes of one case, and the padding before the output on each axis they amount to. */
    private record Geometry(long[] strides, long[] dilations, long[] padBegin, long groups) {}

    @Test
    void groupedStridedOneDimensionalWithPadsAndOutputPadding() {
        Tensor x = random(2, 4, 5);
        Tensor w = random(4, 3, 3);
        Tensor b = random(6);
        Tensor y = new NodeCase("ConvTranspose", 11).attr("group", 2L).attr("strides", new long[] {3})
            .attr("pads", new long[] {2, 1}).attr("output_padding", new long[] {2})
            .input(x).constant(w).constant(b).runOne();
        // 3 * (5 - 1) + 2 + 3 - 2 - 1 outputs
        assertScatter(x, w, b, new Geometry(new long[] {3}, new long[] {1}, new long[] {2}, 2), new long[] {2, 6, 14}, y);
    }

    @Test
    void outputShapeMovesTheOddPaddingElementAfterTheOutputOnlyForSameUpper() {
        Tensor x = random(1, 2, 3, 4);
        Tensor w = random(2, 2, 3, 2);
        // Rows: 2 * 2 + 2 * (3 - 1) + 1 = 9 reached, 8 asked: one element of padding. Columns: 2 * 3 + 2 = 8 reached,
        // 10 asked: two elements beyond the taps, split around the output.
        Geometry upper = new Geometry(new long[] {2, 2}, new long[] {2, 1}, new long[] {0, -1}, 1);
        Tensor sameUpper = new NodeCase("ConvTranspose", 11).attr("strides", new long[] {2, 2})
            .attr("dilations", new long[] {2, 1}).attr("auto_pad", "SAME_UPPER").attr("output_shape", new long[] {8, 10})
            .input(x).constant(w).runOne();
        assertScatter(x, w, null, upper, new long[] {1, 2, 8, 10}, sameUpper);
        Geometry lower = new Geometry(new long[] {2, 2}, new long[] {2, 1}, new long[] {1, -1}, 1);
        Tensor notSet = new NodeCase("ConvTranspose", 11).attr("strides", new long[] {2, 2})
            .attr("dilations", new long[] {2, 1}).attr("output_shape", new long[] {1, 2, 8, 10})
            .input(x).constant(w).runOne();
        assertScatter(x, w, null, lower, new long[] {1, 2, 8, 10}, notSet);
    }

    @Test
    void sameLowerWithoutOutputShapeMultipliesTheInputByTheStride() {
        Tensor x = random(1, 1, 3, 3);
        Tensor w = random(1, 1, 4, 4);
        // 2 * 2 + 4 = 8 reached, 6 asked: the padding of 2 split evenly.
        Tensor y = new NodeCase("ConvTranspose", 11).attr("strides", new long[] {2, 2}).attr("auto_pad", "SAME_LOWER")
            .input(x).constant(w).runOne();
        assertScatter(x, w, null, new Geometry(new long[] {2, 2}, new long[] {1, 1}, new long[] {1, 1}, 1),
            new long[] {1, 1, 6, 6}, y);
    }

    @Test
    void threeDimensional() {
        Tensor x = random(1, 2, 2, 3, 2);
        Tensor w = random(2, 1, 2, 2, 3);
        Tensor y = new NodeCase("ConvTranspose", 11).attr("strides", new long[] {1, 2, 1}).input(x).constant(w).runOne();
        assertScatter(x, w, null, new Geometry(new long[] {1, 2, 1}, new long[] {1, 1, 1}, new long[] {0, 0, 0}, 1),
            new long[] {1, 1, 3, 6, 4}, y);
    }

    @Test
    void weightsForOtherChannelsAreOneLineError() {
        String message = assertThrows(ByodtException.class, () -> new NodeCase("ConvTranspose", 11)
            .input(random(1, 3, 4, 4)).constant(random(2, 1, 3, 3)).runOne()).getMessage();
        assertEquals("ConvTranspose node 'convtranspose': weights W of shape 2x1x3x3 do not fit input X of shape 1x3x4x4 "
            + "with group=1 (W needs 3 x M/group x kernel)", message);
    }

    /** Every product and every partial sum rounded to the datatype, input channels first, then taps by axis. */
    @Test
    void inA16BitDatatypeEachStepRoundsInTheDocumentedOrder() {
        Tensor x = random(1, 4, 3, 3);
        Tensor w = random(4, 1, 2, 3);
        Tensor b = random(2);
        long stride = 2;
        float[] actual = new NodeCase("ConvTranspose", 11).attr("group", 2L).attr("strides", new long[] {stride, stride})
            .input(x).constant(w).constant(b).compileAndRun(NodeCase.T16);
        assertEquals(2 * 6 * 7, actual.length);
        float[] expected = new float[actual.length];
        for (int m = 0; m < 2; m++) {
            for (int oy = 0; oy < 6; oy++) {
                for (int ox = 0; ox < 7; ox++) {
                    float sum = 0;
                    for (int c = 2 * m; c < 2 * m + 2; c++) {
                        for (int ky = 0; ky < 2; ky++) {
                            for (int kx = 0; kx < 3; kx++) {
                                if ((oy - ky) % stride != 0 || (ox - kx) % stride != 0) continue;
                                long iy = (oy - ky) / stride, ix = (ox - kx) / stride;
                                if (oy < ky || ox < kx || iy >= 3 || ix >= 3) continue;
                                float product = t16(t16(x.getFloat((c * 3 + iy) * 3 + ix)) * t16(w.getFloat((c * 2 + ky) * 3 + kx)));
                                sum = t16(sum + product);
                            }
                        }
                    }
                    expected[(m * 6 + oy) * 7 + ox] = t16(sum + t16(b.getFloat(m)));
                }
            }
        }
        assertArrayEquals(expected, actual);
    }

    /**
     * ConvTranspose as ONNX defines it: input element i of channel c, through tap k of each map m of c's group,
     * adds to the output at i*stride + k*dilation - padBegin, when that is inside the output.
     */
    private static double[] scatter(Tensor x, Tensor w, Tensor b, Geometry g, long[] outShape) {
        long[] xs = x.shape(), ws = w.shape();
        int n = xs.length - 2;
        long mapsPerGroup = ws[1], channelsPerGroup = xs[1] / g.groups();
        double[] y = new double[(int) count(outShape)];
        long[] inSpatial = Arrays.copyOfRange(xs, 2, xs.length);
        long[] kernel = Arrays.copyOfRange(ws, 2, ws.length);
        long[] outSpatial = Arrays.copyOfRange(outShape, 2, outShape.length);
        for (long batch = 0; batch < xs[0]; batch++) {
            for (long c = 0; c < xs[1]; c++) {
                for (long i = 0; i < count(inSpatial); i++) {
                    long[] at = unflatten(inSpatial, i);
                    double xv = x.getFloat((batch * xs[1] + c) * count(inSpatial) + i);
                    for (long t = 0; t < count(kernel); t++) {
                        long[] k = unflatten(kernel, t);
                        long outFlat = 0;
                        boolean inside = true;
                        for (int d = 0; d < n; d++) {
                            long o = at[d] * g.strides()[d] + k[d] * g.dilations()[d] - g.padBegin()[d];
                            inside &= o >= 0 && o < outSpatial[d];
                            outFlat = outFlat * outSpatial[d] + o;
                        }
                        if (!inside) continue;
                        for (long m = 0; m < mapsPerGroup; m++) {
                            long map = c / channelsPerGroup * mapsPerGroup + m;
                            double wv = w.getFloat((c * mapsPerGroup + m) * count(kernel) + t);
                            y[(int) ((batch * outShape[1] + map) * count(outSpatial) + outFlat)] += xv * wv;
                        }
                    }
                }
            }
        }
        if (b != null) {
            for (int i = 0; i < y.length; i++) y[i] += b.getFloat(i / count(outSpatial) % outShape[1]);
        }
        return y;
    }

    private static void assertClose(double[] expected, Tensor actual) {
        float[] values = actual.toFloatArray();
        assertEquals(expected.length, values.length, "element count");
        for (int i = 0; i < values.length; i++) {
            assertEquals(expected[i], values[i], 1e-5 * Math.max(1, Math.abs(expected[i])), "element " + i);
        }
    }

    private static void assertScatter(Tensor x, Tensor w, Tensor b, Geometry g, long[] outShape, Tensor actual) {
        assertArrayEquals(outShape, actual.shape());
        assertClose(scatter(x, w, b, g, outShape), actual);
    }

    private Tensor random(long... shape) {
        float[] v = new float[(int) count(shape)];
        for (int i = 0; i < v.length; i++) v[i] = (float) (random.nextDouble() * 2 - 1);
        return Tensor.ofFloats(shape, v);
    }
}
