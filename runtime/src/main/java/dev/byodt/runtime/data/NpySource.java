package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Shapes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A batch in a {@code .npy} file: an array of shape [N, item...] holds N items. Values become float32
 * unchanged (uint8 pixels are not divided by 255: scale them with --mean/--std, which reports record); int64
 * values (token ids for a model's integer input) must be at most 2^24 in magnitude, so that they stay exact.
 * Labels, when given, come from a second .npy file holding N integers (int64 or uint8).
 */
public final class NpySource implements DataSource {
    private static final double LARGEST_EXACT_INTEGER = 1 << 24;
    private final NpyArray data;
    private final int[] labels;
    private final long[] itemShape;
    private final long itemElements;
    private final String description;

    private NpySource(NpyArray data, int[] labels, String description) {
        this.data = data;
        this.labels = labels;
        long[] shape = data.shape();
        this.itemShape = Arrays.copyOfRange(shape, 1, shape.length);
        this.itemElements = Shapes.elementCount(itemShape, data.file().toString());
        this.description = description;
    }

    /** The items of {@code dataFile}, with labels from {@code labelsFile} when it is not null. */
    public static NpySource open(Path dataFile, Path labelsFile) {
        NpyArray data = NpyArray.read(dataFile);
        long[] shape = data.shape();
        if (shape.length == 0) throw new ByodtException(dataFile + " holds a scalar; byodt expects a batch of shape [N, ...]");
        if (shape[0] == 0) throw new ByodtException(dataFile + " holds no items (shape " + Shapes.format(shape) + ")");
        if (shape[0] > Integer.MAX_VALUE) throw new ByodtException(dataFile + " holds more items than byodt reads (" + shape[0] + ")");
        int[] labels = labelsFile == null ? null : readLabels(labelsFile, (int) shape[0]);
        String description = ".npy " + dataFile + " (" + shape[0] + " items of " + Shapes.format(Arrays.copyOfRange(shape, 1, shape.length))
            + ", " + data.kind().name().toLowerCase() + " values as float32" + (labels == null ? "" : ", labels " + labelsFile) + ")";
        return new NpySource(data, labels, description);
    }

    private static int[] readLabels(Path file, int count) {
        NpyArray array = NpyArray.read(file);
        if (!array.kind().isInteger()) throw new ByodtException(file + " holds " + array.kind().name().toLowerCase() + " labels; labels must be int64 or uint8");
        long[] shape = array.shape();
        if (shape.length != 1 || shape[0] != count) {
            throw new ByodtException(file + " has shape " + Shapes.format(shape) + " but the data has " + count + " items, so it needs " + count + " labels");
        }
        int[] labels = new int[count];
        for (int i = 0; i < count; i++) {
            long label = array.getLong(i);
            if (label < 0 || label > Integer.MAX_VALUE) throw new ByodtException(file + ": label " + i + " is " + label);
            labels[i] = (int) label;
        }
        return labels;
    }

    @Override
    public String description() { return description; }

    @Override
    public long[] itemShape() { return itemShape.clone(); }

    @Override
    public int size() { return (int) data.shape()[0]; }

    @Override
    public void readItem(int index, MemorySegment target) {
        long first = index * itemElements;
        for (long e = 0; e < itemElements; e++) target.setAtIndex(ValueLayout.JAVA_FLOAT, e, asFloat(first + e));
    }

    /**
     * Element {@code i} as float32, which every item is carried as; an integer (a token id) must survive that
     * exactly, as every integer up to 2^24 does, since an integer model input takes it back.
     */
    private float asFloat(long i) {
        double value = data.get(i);
        if (data.kind() == NpyArray.Kind.INT64 && Math.abs(value) > LARGEST_EXACT_INTEGER) {
            throw new ByodtException(data.file() + ": element " + i + " is " + data.getLong(i) + ", beyond the integers float32 holds exactly"
                + " (2^24), which byodt carries items as");
        }
        return (float) value;
    }

    @Override
    public boolean holdsIntegers() { return data.kind().isInteger(); }

    @Override
    public boolean hasLabels() { return labels != null; }

    @Override
    public int label(int index) { return labels[index]; }
}
