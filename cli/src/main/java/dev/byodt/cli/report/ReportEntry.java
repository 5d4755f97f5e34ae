package dev.byodt.cli.report;

import java.util.List;

/**
 * The results of one datatype configuration against the float32 reference.
 *
 * @param index   the configuration's place in its sweep (0 for a single run), kept across shards
 * @param outputs one set of figures per model output, in the graph's output order; empty when it failed
 * @param failure why the configuration could not be compiled or run (a sweep reports it and goes on), else null
 */
public record ReportEntry(int index, String dtype, String accumulate, String rounding, String overflow, List<OutputFigures> outputs,
                          String failure) {
    public ReportEntry {
        outputs = List.copyOf(outputs);
    }

    public ReportEntry(int index, String dtype, String accumulate, String rounding, String overflow, List<OutputFigures> outputs) {
        this(index, dtype, accumulate, rounding, overflow, outputs, null);
    }

    /** A configuration that failed, with the one-line reason. */
    public static ReportEntry failed(int index, String dtype, String accumulate, String rounding, String overflow, String failure) {
        return new ReportEntry(index, dtype, accumulate, rounding, overflow, List.of(), failure);
    }

    public boolean succeeded() { return failure == null; }
}
