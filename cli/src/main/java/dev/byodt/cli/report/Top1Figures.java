package dev.byodt.cli.report;

/**
 * Top-1 results as fractions in [0, 1].
 *
 * @param items             items seen
 * @param labeled           items that had a label
 * @param referenceAccuracy the reference's top-1 accuracy over labelled items; null without labels
 * @param testAccuracy      the test output's top-1 accuracy over labelled items; null without labels
 * @param agreement         the fraction of positions where both pick the same class; null when there were none
 * @param positions         positions compared: one per item, or for an output of rank 3 or more every element
 *                          of its axes but the batch and the class axis, in every item
 * @param classAxis         the class axis of an output compared position by position; null for one position per item
 */
public record Top1Figures(long items, long labeled, Double referenceAccuracy, Double testAccuracy, Double agreement,
                          long positions, Integer classAxis) {
    /** Accuracy points lost, reference minus test, in percentage points; null without labels. */
    public Double drop() {
        return referenceAccuracy == null ? null : 100 * (referenceAccuracy - testAccuracy);
    }
}
