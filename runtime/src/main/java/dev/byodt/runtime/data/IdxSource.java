package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.LabeledImages;
import dev.byodt.runtime.Tensor;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * MNIST-style IDX images and labels (read by {@link IdxReader}): items are [1, rows, cols] float32
 * pixel/255 in [0, 1], labels as stored.
 */
public final class IdxSource implements DataSource {
    private final LabeledImages data;
    private final long itemBytes;
    private final String description;

    private IdxSource(LabeledImages data, String description) {
        this.data = data;
        long[] shape = data.images().shape();
        this.itemBytes = shape[1] * shape[2] * shape[3] * Float.BYTES;
        this.description = description;
    }

    /** The "t10k" split of a folder (see {@link IdxReader#readTestSet}), at most {@code limit} images. */
    public static IdxSource testSet(Path directory, int limit) { return split(directory, "t10k", limit); }

    /** One split ("t10k" or "train") of a folder, at most {@code limit} images. */
    public static IdxSource split(Path directory, String split, int limit) {
        LabeledImages data = IdxReader.readSplit(directory, split, limit);
        if (data.size() == 0) {
            throw new ByodtException(IdxReader.find(directory, split + "-images-idx3-ubyte") + " holds no images");
        }
        return new IdxSource(data, "IDX " + split + " of " + directory + " (" + data.size() + " images, pixel/255)");
    }

    @Override
    public String description() { return description; }

    @Override
    public long[] itemShape() {
        long[] shape = data.images().shape();
        return Arrays.copyOfRange(shape, 1, shape.length);
    }

    @Override
    public int size() { return data.size(); }

    @Override
    public void readItem(int index, MemorySegment target) {
        Tensor images = data.images();
        MemorySegment.copy(images.data(), index * itemBytes, target, 0, itemBytes);
    }

    @Override
    public boolean hasLabels() { return true; }

    @Override
    public int label(int index) { return data.labels()[index]; }
}
