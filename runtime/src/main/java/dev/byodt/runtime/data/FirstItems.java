package dev.byodt.runtime.data;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** The first items of another data source (--limit). */
final class FirstItems implements DataSource {
    private final DataSource all;
    private final int count;

    FirstItems(DataSource all, int count) {
        this.all = all;
        this.count = Objects.checkIndex(count - 1, all.size()) + 1;
    }

    @Override
    public String description() { return all.description() + ", first " + count + " items"; }

    @Override
    public long[] itemShape() { return all.itemShape(); }

    @Override
    public int size() { return count; }

    @Override
    public void readItem(int index, MemorySegment target) { all.readItem(Objects.checkIndex(index, count), target); }

    @Override
    public boolean hasLabels() { return all.hasLabels(); }

    @Override
    public boolean holdsIntegers() { return all.holdsIntegers(); }

    @Override
    public int label(int index) { return all.label(Objects.checkIndex(index, count)); }
}
