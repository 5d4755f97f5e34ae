package dev.byodt.cli.report;

/**
 * Everything measured on one model output over a data set: element-wise error and top-1 counts. The output
 * holds one row of scores per item (a classifier's [batch, classes]); partial comparisons from several
 * threads merge exactly.
 */
public final class OutputComparison {
    private final String name;
    private final ErrorStatistics errors;
    private final Top1Tally top1 = new Top1Tally();

    /** @param saturationMagnitude see {@link ErrorStatistics#ErrorStatistics(double)} */
    public OutputComparison(String name, double saturationMagnitude) {
        this.name = name;
        this.errors = new ErrorStatistics(saturationMagnitude);
    }

    /**
     * Adds one item whose scores are {@code length} elements from {@code from} in both outputs.
     *
     * @param label the item's class, or {@link Top1Tally#NO_LABEL}
     */
    public void addItem(float[] reference, float[] test, int from, int length, int label) {
        errors.add(reference, test, from, length);
        top1.add(Top1.argmax(reference, from, length), Top1.argmax(test, from, length), label);
    }

    public void merge(OutputComparison other) {
        if (!other.name.equals(name)) throw new IllegalArgumentException("merging output " + other.name + " into " + name);
        errors.merge(other.errors);
        top1.merge(other.top1);
    }

    public OutputFigures figures() { return new OutputFigures(name, top1.figures(), errors.figures()); }
}
