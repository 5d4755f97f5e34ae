package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.Tensor;

import static dev.byodt.compiler.kernel.Exprs.flatIndex;

/**
 * Weights rearranged into the order a kernel's innermost loop reads them: at compile time when they are
 * constants, else (weights being trained, which are run-time inputs) by the kernel as it starts, which costs one
 * pass over them. Kernels that vectorize across output channels read one weight per output channel for each term
 * of the sums; in ONNX's layout those are a whole row apart, in the packed layout they are neighbours.
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

    /**
     * As {@link #transposed}, done by the kernel {@code kb} builds, into a scratch buffer of the same shape,
     * from the flat buffer {@code weights}.
     */
    static Buffer transposedAtRunTime(KernelBuilder kb, Buffer weights, long groups, long rows, long columns) {
        long[] shape = groups == 1 ? new long[] {columns, rows} : new long[] {groups, columns, rows};
        Buffer packed = kb.scratch("packed", weights.elementType(), shape);
        kb.loops(new long[] {groups, columns, rows}, at -> kb.store(packed, flatIndex(new long[] {groups, columns, rows}, at),
            kb.load(weights, flatIndex(new long[] {groups, rows, columns}, at[0], at[2], at[1]))));
        return packed;
    }

    /**
     * {@code weights} seen as {@code groups} matrices of {@code rows x columns} (a row per output map, a column per
     * term of its sums), cut into panels of {@code panelRows} rows and each panel transposed: element [g][r][c]
     * moves to [g][r / panelRows][c][r % panelRows], so that a term's weights for a panel's maps are neighbours. The
     * rows of the last panel beyond {@code rows} are zeros. Shape {@code groups x panels x columns x panelRows}.
     */
    static Tensor panels(Tensor weights, long groups, long rows, long columns, long panelRows) {
        float[] from = weights.toFloatArray();
        long panels = (rows + panelRows - 1) / panelRows;
        float[] to = new float[Math.toIntExact(groups * panels * columns * panelRows)];
        for (long g = 0; g < groups; g++) {
            for (long r = 0; r < rows; r++) {
                for (long c = 0; c < columns; c++) {
                    to[(int) (((g * panels + r / panelRows) * columns + c) * panelRows + r % panelRows)] =
                        from[(int) ((g * rows + r) * columns + c)];
                }
            }
        }
        return Tensor.ofFloats(new long[] {groups, panels, columns, panelRows}, to);
    }
}
