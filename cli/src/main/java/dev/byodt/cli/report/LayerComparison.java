package dev.byodt.cli.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the error enters (--per-layer): the error of every intermediate tensor of the test run against the
 * reference run, accumulated over a data set, in graph order. Partial comparisons from several threads merge
 * exactly ({@link ErrorStatistics}).
 */
public final class LayerComparison {
    private final Map<String, ErrorStatistics> byTensor = new LinkedHashMap<>();

    /**
     * @param tensorsInGraphOrder the intermediate tensors to compare, in the order the graph computes them
     * @param saturationMagnitude the datatype's largest finite magnitude (see {@link ErrorStatistics})
     */
    public LayerComparison(List<String> tensorsInGraphOrder, double saturationMagnitude) {
        for (String tensor : tensorsInGraphOrder) {
            if (byTensor.put(tensor, new ErrorStatistics(saturationMagnitude)) != null) {
                throw new IllegalArgumentException("tensor '" + tensor + "' listed twice");
            }
        }
    }

    /** Adds one input's intermediates (any subset of the tensors, in any order). */
    public void add(List<LayerPair> intermediates) {
        for (LayerPair pair : intermediates) statistics(pair.tensor()).add(pair.reference(), pair.test());
    }

    public void merge(LayerComparison other) {
        if (!other.byTensor.keySet().equals(byTensor.keySet())) throw new IllegalArgumentException("merging comparisons of different tensors");
        other.byTensor.forEach((tensor, stats) -> byTensor.get(tensor).merge(stats));
    }

    /** The figures per tensor, in graph order. */
    public List<LayerFigures> figures() {
        List<LayerFigures> figures = new ArrayList<>();
        byTensor.forEach((tensor, stats) -> figures.add(new LayerFigures(tensor, stats.figures())));
        return figures;
    }

    private ErrorStatistics statistics(String tensor) {
        ErrorStatistics stats = byTensor.get(tensor);
        if (stats == null) throw new IllegalArgumentException("tensor '" + tensor + "' is not one of the compared intermediates");
        return stats;
    }
}
