package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Shapes;

import java.lang.foreign.MemorySegment;

/**
 * A data set to run a model on: a sequence of float32 items that all have one shape (one image, say
 * [1, 28, 28]), and optionally one class label per item. How the items were made (file, scaling,
 * normalization) is in {@link #description()}, which every report records.
 *
 * <p>{@link #readItem} may be called from several threads at once, each with its own target memory.
 */
public interface DataSource {

    /** What the data is and how it was scaled, e.g. "IDX t10k of /data/fashion-mnist (10000 images, pixel/255)". */
    String description();

    /** The shape of one item, without a batch dimension. */
    long[] itemShape();

    /** The number of items; never 0 (an empty data set is an error when it is opened). */
    int size();

    /** Writes item {@code index} as float32 in row-major order into {@code target}, which holds exactly one item. */
    void readItem(int index, MemorySegment target);

    /**
     * Whether every item holds integers, exact in float32 (token ids from an int64 .npy), so that the data may feed
     * an integer model input.
     */
    default boolean holdsIntegers() { return false; }

    boolean hasLabels();

    /** The class label of item {@code index}; only when {@link #hasLabels()}. */
    int label(int index);

    /** The number of float32 elements in one item. */
    default long itemElements() { return Shapes.elementCount(itemShape(), "data item"); }

    /**
     * Checks that every label names one of the model's {@code classes} output classes, so a wrong label
     * file fails up front instead of counting as a misclassification.
     */
    default void requireLabelsBelow(int classes) {
        if (!hasLabels()) throw new ByodtException(description() + ": the data has no labels, so accuracy cannot be measured");
        for (int i = 0; i < size(); i++) {
            int label = label(i);
            if (label < 0 || label >= classes) {
                throw new ByodtException(description() + ": item " + i + " has label " + label
                    + ", outside the model's " + classes + " classes (0.." + (classes - 1) + ")");
            }
        }
    }

    /** The first {@code count} items (all of them when there are fewer). */
    default DataSource firstItems(int count) {
        if (count <= 0) throw new IllegalArgumentException("item count " + count);
        return count >= size() ? this : new FirstItems(this, count);
    }
}
