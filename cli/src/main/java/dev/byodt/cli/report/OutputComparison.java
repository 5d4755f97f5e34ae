package dev.byodt.cli.report;

/**
 * Everything measured on one model output over a data set: element-wise error and top-1 counts. The output
 * holds one row of scores per item (a classifier's [batch, classes]), or a row of positions each scored over
 * a class axis ({@link ClassPositions}); partial comparisons from several threads merge exactly.
 */
public final class OutputComparison {
    private final String name;
    private final ClassPositions classes;
    private final ErrorStatistics errors;
    private final Top1Tally top1 = new Top1Tally();

    /** @param saturationMagnitude see {@link ErrorStatistics#ErrorStatistics(double)} */
    public OutputComparison(String name, ClassPositions classes, double saturationMagnitude) {
        this.name = name;
        this.classes = classes;
        this.errors = new ErrorStatistics(saturationMagnitude);
    }

    /**
     * Adds one item whose row is {@code length} elements from {@code from} in both outputs.
     *
     * @param label the item's class, or {@link Top1Tally#NO_LABEL}; only a row of one position has one
     */
    public void addItem(float[] reference, float[] test, int from, int length, int label) {
        errors.add(reference, test, from, length);
        top1.addItem();
        for (int p = 0; p < classes.positions(); p++) {
            int start = from + classes.start(p);
            top1.add(Top1.argmax(reference, start, classes.classes(), classes.inner()),
                Top1.argmax(test, start, classes.classes(), classes.inner()), label);
        }
    }

    public void merge(OutputComparison other) {
        if (!other.name.equals(name)) throw new IllegalArgumentException("merging output " + other.name + " into " + name);
        errors.merge(other.errors);
        top1.merge(other.top1);
    }

    public OutputFigures figures() {
        return new OutputFigures(name, top1.figures(classes.axis() < 0 ? null : classes.axis()), errors.figures());
    }
}
