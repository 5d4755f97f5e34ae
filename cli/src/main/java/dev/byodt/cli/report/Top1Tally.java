package dev.byodt.cli.report;

/**
 * Top-1 counts over a data set: how often the reference and the test output pick the labelled class, and
 * how often they pick the same class, at each position of each item (one per item for a classifier).
 * Mergeable across threads (plain counts).
 */
public final class Top1Tally {
    /** The label of an item that has none. */
    public static final int NO_LABEL = -1;

    private long items, positions, labeled, referenceCorrect, testCorrect, agreements;

    /** Counts one item, whose positions follow through {@link #add}. */
    public void addItem() { items++; }

    /** One position: the classes each output picked ({@link Top1#argmax}) and its label or {@link #NO_LABEL}. */
    public void add(int referenceClass, int testClass, int label) {
        positions++;
        if (referenceClass == testClass && referenceClass != Top1.NONE) agreements++;
        if (label == NO_LABEL) return;
        labeled++;
        if (referenceClass == label) referenceCorrect++;
        if (testClass == label) testCorrect++;
    }

    public void merge(Top1Tally other) {
        items += other.items;
        positions += other.positions;
        labeled += other.labeled;
        referenceCorrect += other.referenceCorrect;
        testCorrect += other.testCorrect;
        agreements += other.agreements;
    }

    /** @param classAxis the class axis of an output scored position by position, or null for one position per item */
    public Top1Figures figures(Integer classAxis) {
        return new Top1Figures(items, labeled,
            labeled == 0 ? null : (double) referenceCorrect / labeled,
            labeled == 0 ? null : (double) testCorrect / labeled,
            positions == 0 ? null : (double) agreements / positions, positions, classAxis);
    }
}
