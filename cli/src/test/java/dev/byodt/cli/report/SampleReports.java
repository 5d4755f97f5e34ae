package dev.byodt.cli.report;

import java.util.ArrayList;
import java.util.List;

/**
 * Invented sweep results, shaped like a LeNet-5 sweep, for testing writers and charts (the figures are
 * made up for the tests, not measured).
 */
public final class SampleReports {
    private SampleReports() {}

    public static RunSetup setup() {
        return new RunSetup("models/lenet5-fashion.onnx", "ab".repeat(32), "x86_64-pc-linux-gnu", "separate", "0.1.0-test",
            "IDX t10k of models/fashion-mnist-sample (1000 images, pixel/255)", "byodt float32");
    }

    public static OutputFigures figures(double reference, double test, double sqnr) {
        return new OutputFigures("logits", new Top1Figures(1000, 1000, reference, test, Math.min(1, 1 - (reference - test) - 0.001), 1000, null),
            new ErrorFigures(10000, 10000, 0.5 / (1 + sqnr), 0.05 / (1 + sqnr), 0.01, sqnr, 0, 0, 0));
    }

    /** posit 8..16, fxp16_8..12, bfloat16 and an exact float32 entry (SQNR infinite). */
    public static ComparisonReport sweep() {
        List<ReportEntry> entries = new ArrayList<>();
        for (int bits = 8; bits <= 16; bits += 2) {
            entries.add(new ReportEntry(entries.size(), "custom[posit]" + bits, "dtype", "nearest", "saturate",
                List.of(figures(0.89, 0.89 - 0.05 * Math.pow(2, -(bits - 8) / 2.0), 6 * bits - 20))));
        }
        for (int p = 8; p <= 12; p++) {
            entries.add(new ReportEntry(entries.size(), "fxp16_" + p, "dtype", "nearest", "saturate",
                List.of(figures(0.89, 0.80 + 0.015 * (p - 8), 30 + 3 * (p - 8)))));
        }
        entries.add(new ReportEntry(entries.size(), "bfloat16", "dtype", "nearest", "saturate", List.of(figures(0.89, 0.888, 45.5))));
        entries.add(new ReportEntry(entries.size(), "float32", "dtype", "nearest", "saturate", List.of(figures(0.89, 0.89, Double.POSITIVE_INFINITY))));
        return new ComparisonReport(setup(), entries.size(), null, entries);
    }
}
