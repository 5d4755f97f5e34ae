package dev.byodt.cli.report;

import java.util.List;

/**
 * The results of one datatype configuration against the float32 reference.
 *
 * @param index   the configuration's place in its sweep (0 for a single run), kept across shards
 * @param outputs one set of figures per model output, in the graph's output order
 */
public record ReportEntry(int index, String dtype, String accumulate, String rounding, String overflow, List<OutputFigures> outputs) {
    public ReportEntry {
        outputs = List.copyOf(outputs);
    }
}
