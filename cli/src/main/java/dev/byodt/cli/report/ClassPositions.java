package dev.byodt.cli.report;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.TensorSpec;

/**
 * Where the class scores lie in one item's row of an output. A classifier's [batch, classes] row is one
 * position; an output of rank 3 or more (a language model's [batch, sequence, vocabulary], a segmentation
 * map's [batch, classes, height, width]) holds a position per element of the other axes, and top-1 is taken
 * at each of them over the class axis. Position p's class c is at
 * {@code (p / inner) * classes * inner + c * inner + p % inner} in the row.
 *
 * @param axis    the class axis of the output's shape (its first axis being the batch), or -1 for a row of one position
 * @param outer   positions before the class axis (product of the dimensions between the batch and the class axis)
 * @param classes the class axis's length
 * @param inner   positions after it, which is also the distance between two classes of one position
 */
public record ClassPositions(int axis, int outer, int classes, int inner) {
    /** Rank of the outputs that are compared position by position. */
    public static final int DENSE_RANK = 3;

    /**
     * @param rowLength the elements of one item's row
     * @param classAxis --class-axis (negative counts from the end), or null for the last axis
     */
    public static ClassPositions of(TensorSpec output, int rowLength, Integer classAxis) {
        long[] shape = output.shape();
        if (shape.length < DENSE_RANK) return new ClassPositions(-1, 1, rowLength, 1);
        int axis = classAxis == null ? shape.length - 1 : classAxis < 0 ? shape.length + classAxis : classAxis;
        if (axis < 1 || axis >= shape.length) {
            throw new ByodtException("--class-axis " + classAxis + " does not name a class axis of output '" + output.name() + "' of shape "
                + Shapes.format(shape) + " (1 to " + (shape.length - 1) + ", or -1 to -" + (shape.length - 1) + "; axis 0 is the batch)");
        }
        long outer = 1, inner = 1;
        for (int d = 1; d < axis; d++) outer *= shape[d];
        for (int d = axis + 1; d < shape.length; d++) inner *= shape[d];
        return new ClassPositions(axis, Math.toIntExact(outer), Math.toIntExact(shape[axis]), Math.toIntExact(inner));
    }

    public int positions() { return outer * inner; }

    /** Where position {@code p}'s first class lies in the row. */
    public int start(int p) { return (p / inner) * classes * inner + p % inner; }
}
