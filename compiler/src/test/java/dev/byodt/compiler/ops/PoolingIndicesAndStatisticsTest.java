package dev.byodt.compiler.ops;

import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the ONNX node cases of MaxPool's Indices, MaxUnpool and BatchNormalization's training mode do not reach:
 * ties, storage orders, integer inputs, indices outside the unpooled tensor, and the running statistics.
 */
class PoolingIndicesAndStatisticsTest {
    private static final long[] TWO_BY_TWO = {1, 1, 2, 2};

    private static List<Tensor> maxPool(Tensor x, long storageOrder) {
        return new NodeCase("MaxPool", 12).attr("kernel_shape", new long[] {2, 2}).attr("storage_order", storageOrder)
            .input(x).outputs(2).run();
    }

    @Test
    void maxPoolIndicesNameTheFirstMaximumInEitherStorageOrder() {
        assertArrayEquals(new long[] {0}, maxPool(floats(TWO_BY_TWO, 3, 3, 3, 3), 0).get(1).toLongArray());
        // 4 is at row 0, column 1: flat index 1 row-major, 0 + 1 * 2 column-major.
        Tensor x = floats(TWO_BY_TWO, 1, 4, 2, 3);
        assertArrayEquals(new long[] {1}, maxPool(x, 0).get(1).toLongArray());
        assertArrayEquals(new long[] {2}, maxPool(x, 1).get(1).toLongArray());
        assertArrayEquals(new float[] {4}, maxPool(x, 1).get(0).toFloatArray());
    }

    @Test
    void maxPoolOfIntegersStaysInteger() {
        Tensor y = maxPool(longs(TWO_BY_TWO, -7, -3, -9, -4), 0).get(0);
        assertEquals(ElementType.INT64, y.type());
        assertArrayEquals(new long[] {-3}, y.toLongArray());
    }

    @Test
    void maxUnpoolSkipsIndicesOutsideTheUnpooledTensorAndPadsToOutputShape() {
        NodeCase unpool = new NodeCase("MaxUnpool", 11).attr("kernel_shape", new long[] {1, 2}).attr("strides", new long[] {1, 2})
            .input(floats(new long[] {1, 1, 1, 2}, 5, 6)).input(longs(new long[] {1, 1, 1, 2}, 1, 99));
        assertArrayEquals(new float[] {0, 5, 0, 0}, unpool.runOne().toFloatArray());
        Tensor padded = unpool.constant(longs(1, 1, 2, 5)).runOne();
        assertArrayEquals(new long[] {1, 1, 2, 5}, padded.shape());
        assertArrayEquals(new float[] {0, 5, 0, 0, 0, 0, 0, 0, 0, 0}, padded.toFloatArray());
    }

    @Test
    void trainingModeNormalizesByTheBatchAndUpdatesTheRunningStatistics() {
        float[] x = {1, 2, 3, 4, 10, 20, 30, 40};
        List<Tensor> out = new NodeCase("BatchNormalization", 15).attr("training_mode", 1L).attr("momentum", 0.75f)
            .input(floats(new long[] {2, 2, 2}, x)).input(floats(2, 3)).input(floats(0.5f, -1))
            .input(floats(1, 2)).input(floats(4, 5)).outputs(3).run();
        // Channel 0 holds 1, 2, 10, 20; channel 1 holds 3, 4, 30, 40 (N x C x D = 2 x 2 x 2).
        double[][] channels = {{1, 2, 10, 20}, {3, 4, 30, 40}};
        double[] scale = {2, 3}, bias = {0.5, -1}, runningMean = {1, 2}, runningVariance = {4, 5};
        for (int c = 0; c < 2; c++) {
            double mean = 0, variance = 0;
            for (double v : channels[c]) mean += v / 4;
            for (double v : channels[c]) variance += (v - mean) * (v - mean) / 4;
            assertEquals(runningMean[c] * 0.75 + mean * 0.25, out.get(1).getFloat(c), 1e-5, "running mean " + c);
            assertEquals(runningVariance[c] * 0.75 + variance * 0.25, out.get(2).getFloat(c), 1e-4, "running variance " + c);
            for (int n = 0; n < 2; n++) {
                for (int d = 0; d < 2; d++) {
                    double want = (x[n * 4 + c * 2 + d] - mean) / Math.sqrt(variance + 1e-5) * scale[c] + bias[c];
                    assertEquals(want, out.get(0).getFloat(n * 4 + c * 2 + d), 1e-5, "y " + n + "," + c + "," + d);
                }
            }
        }
    }
}
