package dev.byodt.cli.report;

/**
 * The element-wise error of a test output against the reference over a data set ({@link ErrorStatistics}
 * says which elements count). With x the test value and r the reference value of a compared element:
 *
 * @param elements     all elements seen
 * @param compared     elements where both x and r are finite; the figures below are over these
 * @param maxAbsError  max |x - r|
 * @param meanAbsError mean of |x - r|
 * @param meanRelError mean of |x - r| / max(|r|, {@value ErrorStatistics#RELATIVE_ERROR_FLOOR})
 * @param sqnrDb       signal to quantization noise ratio, 10 log10(sum r^2 / sum (x - r)^2) in dB: +infinity when
 *                     x equals r everywhere, -infinity when r is 0 everywhere and x is not; NaN when nothing was compared
 * @param nan          elements where x is NaN (a NaR)
 * @param infinite     elements where x is +-infinity
 * @param saturated    elements where x is finite and |x| equals the datatype's largest finite magnitude
 */
public record ErrorFigures(long elements, long compared, double maxAbsError, double meanAbsError, double meanRelError,
                           double sqnrDb, long nan, long infinite, long saturated) {}
