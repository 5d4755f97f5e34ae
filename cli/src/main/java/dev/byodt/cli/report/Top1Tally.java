package dev.byodt.cli.report;

/**
 * Top-1 counts over a data set: how often the reference and the test output pick the labelled class, and
 * how often they pick the same class. Mergeable across threads (plain counts).
 */
public final class Top1Tally {
    /** The label of an item that has none. */
    public static final int NO_LABEL = -1;

    private long items, labeled, referenceCorrect, testCorrect, agreements;

    /** One item: the classes each output picked ({@link Top1#argmax}) and its label or {@link #NO_LABEL}. */
    public void add(int referenceClass, int testClass, int label) {
        items++;
        if (referenceClass == testClass && referenceClass != Top1.NONE) agreements++;
        if (label == NO_LABEL) return;
        labeled++;
        if (referenceClass == label) referenceCorrect++;
        if (testClass == label) testCorrect++;
    }

    public void merge(Top1Tally other) {
        items += other.items;
        labeled += other.labeled;
        referenceCorrect += other.referenceCorrect;
        testCorrect += other.testCorrect;
        agreements += other.agreements;
    }

    public Top1Figures figures() {
        return new Top1Figures(items, labeled,
            labeled == 0 ? null : (double) referenceCorrect / labeled,
            labeled == 0 ? null : (double) testCorrect / labeled,
            items == 0 ? null : (double) agreements / items);
    }
}
