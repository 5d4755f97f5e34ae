package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Another source's items with a {@link Normalization} applied per channel. */
public final class NormalizedSource implements DataSource {
    private final DataSource items;
    private final Normalization normalization;
    private final long channelElements;

    public NormalizedSource(DataSource items, Normalization normalization) {
        long[] shape = items.itemShape();
        if (shape.length == 0) throw new ByodtException(items.description() + ": scalar items have no channel axis to normalize");
        normalization.requireChannels(shape[0], items.description());
        this.items = items;
        this.normalization = normalization;
        this.channelElements = items.itemElements() / shape[0];
    }

    @Override
    public String description() { return items.description() + ", then " + normalization.describe(); }

    @Override
    public long[] itemShape() { return items.itemShape(); }

    @Override
    public int size() { return items.size(); }

    @Override
    public void readItem(int index, MemorySegment target) {
        items.readItem(index, target);
        long elements = items.itemElements();
        for (long e = 0; e < elements; e++) {
            int channel = (int) (e / channelElements);
            double x = target.getAtIndex(ValueLayout.JAVA_FLOAT, e);
            target.setAtIndex(ValueLayout.JAVA_FLOAT, e, (float) ((x - normalization.mean(channel)) / normalization.std(channel)));
        }
    }

    @Override
    public boolean hasLabels() { return items.hasLabels(); }

    @Override
    public int label(int index) { return items.label(index); }
}
