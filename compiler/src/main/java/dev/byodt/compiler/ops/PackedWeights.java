package dev.byodt.compiler.ops;

import dev.byodt.runtime.Tensor;

/**
 * Weights rearranged at compile time into the order a kernel's innermost loop reads them. Kernels that
 * vectorize across output channels read one weight per output channel for each term of the sums; in
 * ONNX's layout those are a whole row apart, in the packed layout they are neighbours.
 */
final class PackedWeights {
    private PackedWeights() {}

    /**
     * {@code weights} seen as {@code groups} matrices of {@code rows x columns}, each transposed: element
     * [g][r][c] moves to [g][c][r]. The result has shape {@code groups x columns x rows}, or
     * {@code columns x rows} for one group.
     */
    static Tensor transposed(Tensor weights, long groups, long rows, long columns) {
        float[] from = weights.toFloatArray();
        float[] to = new float[from.length];
        for (long g = 0; g < groups; g++) {
            for (long r = 0; r < rows; r++) {
                for (long c = 0; c < columns; c++) {
                    to[(int) ((g * columns + c) * rows + r)] = from[(int) ((g * rows + r) * columns + c)];
                }
            }
        }
        long[] shape = groups == 1 ? new long[] {columns, rows} : new long[] {groups, columns, rows};
        return Tensor.ofFloats(shape, to);
    }
}
