package dev.byodt.cli.report;

/**
 * Element-wise error of a test output x (a datatype's results, converted to float32) against a reference
 * output r (float32), accumulated over a data set. Partial statistics from several threads {@link #merge}
 * into exactly the figures one pass would give: counts and maxima merge trivially and the sums are
 * {@link ExactSum}s (each element's term is rounded once in double; the sums of terms are exact).
 *
 * <p>An element is <em>compared</em> when both x and r are finite; the error figures are over compared
 * elements only. A NaN (NaR) or infinite x is counted instead, as is a finite x whose magnitude equals the
 * datatype's largest finite magnitude ({@code saturationMagnitude}, e.g. 65504 for float16, 2^56 for
 * posit16, 32767/8192 for fxp16_13): such an output has probably been clipped.
 */
public final class ErrorStatistics {
    /**
     * The floor under |r| in the relative error, so a reference element of 0 (common in logits after ReLU)
     * does not make it infinite. Elements with |r| below the floor have their error divided by the floor.
     */
    public static final double RELATIVE_ERROR_FLOOR = 1e-6;

    private final double saturationMagnitude;
    private long elements, compared, nan, infinite, saturated;
    private double maxAbsError;
    private final ExactSum absError = new ExactSum(), relError = new ExactSum(), signal = new ExactSum(), noise = new ExactSum();

    /** @param saturationMagnitude the datatype's largest finite magnitude; +infinity when it has none worth counting */
    public ErrorStatistics(double saturationMagnitude) {
        if (!(saturationMagnitude > 0)) throw new IllegalArgumentException("saturation magnitude " + saturationMagnitude);
        this.saturationMagnitude = saturationMagnitude;
    }

    public void add(float[] reference, float[] test) {
        if (reference.length != test.length) throw new IllegalArgumentException(reference.length + " vs " + test.length + " elements");
        add(reference, test, 0, reference.length);
    }

    /** Adds elements {@code from} to {@code from + length} of both arrays. */
    public void add(float[] reference, float[] test, int from, int length) {
        for (int i = from; i < from + length; i++) add(reference[i], test[i]);
    }

    public void add(float reference, float test) {
        elements++;
        if (Float.isNaN(test)) nan++;
        else if (Float.isInfinite(test)) infinite++;
        else if (Math.abs((double) test) == saturationMagnitude) saturated++;
        if (!Float.isFinite(test) || !Float.isFinite(reference)) return;
        compared++;
        double r = reference, error = Math.abs((double) test - r);
        maxAbsError = Math.max(maxAbsError, error);
        absError.add(error);
        relError.add(error / Math.max(Math.abs(r), RELATIVE_ERROR_FLOOR));
        signal.add(r * r);
        noise.add(error * error);
    }

    /** Adds another accumulator's elements (same saturation magnitude) to this one. */
    public void merge(ErrorStatistics other) {
        if (other.saturationMagnitude != saturationMagnitude) throw new IllegalArgumentException("different saturation magnitudes");
        elements += other.elements;
        compared += other.compared;
        nan += other.nan;
        infinite += other.infinite;
        saturated += other.saturated;
        maxAbsError = Math.max(maxAbsError, other.maxAbsError);
        absError.add(other.absError);
        relError.add(other.relError);
        signal.add(other.signal);
        noise.add(other.noise);
    }

    public ErrorFigures figures() {
        double s = signal.value(), n = noise.value();
        double sqnr = compared == 0 ? Double.NaN : n == 0 ? Double.POSITIVE_INFINITY : 10 * Math.log10(s / n);
        return new ErrorFigures(elements, compared,
            compared == 0 ? Double.NaN : maxAbsError,
            compared == 0 ? Double.NaN : absError.value() / compared,
            compared == 0 ? Double.NaN : relError.value() / compared,
            sqnr, nan, infinite, saturated);
    }
}
