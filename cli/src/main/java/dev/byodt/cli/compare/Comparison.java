package dev.byodt.cli.compare;

import dev.byodt.cli.report.OutputComparison;
import dev.byodt.cli.report.OutputFigures;
import dev.byodt.cli.report.Top1Tally;
import dev.byodt.runtime.data.DataSource;

import java.util.ArrayList;
import java.util.List;

/**
 * The figures of a test run against the reference run on the same items, per output. Labels, when the data
 * has them, belong to the first output (a classifier's scores); other outputs get top-1 agreement only.
 */
public final class Comparison {
    private Comparison() {}

    /** @param saturationMagnitude the test datatype's largest finite magnitude ({@link SaturationProbe}) */
    public static List<OutputFigures> of(ItemOutputs reference, ItemOutputs test, DataSource data, double saturationMagnitude) {
        List<OutputFigures> figures = new ArrayList<>();
        for (int o = 0; o < reference.names().size(); o++) {
            OutputComparison comparison = new OutputComparison(reference.names().get(o), reference.classes()[o], saturationMagnitude);
            int row = reference.rowLength()[o];
            for (int i = 0; i < data.size(); i++) {
                int label = o == 0 && data.hasLabels() ? data.label(i) : Top1Tally.NO_LABEL;
                comparison.addItem(reference.values()[o], test.values()[o], i * row, row, label);
            }
            figures.add(comparison.figures());
        }
        return figures;
    }
}
