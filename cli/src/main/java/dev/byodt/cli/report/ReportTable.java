package dev.byodt.cli.report;

import java.util.ArrayList;
import java.util.List;

/**
 * The readable form of a {@link ComparisonReport}: the setup, then one row per configuration (and per
 * output, when the model has several). "drop" is the reference's top-1 accuracy minus the datatype's,
 * in percentage points.
 */
public final class ReportTable {
    private ReportTable() {}

    public static String render(ComparisonReport report) {
        RunSetup s = report.setup();
        StringBuilder out = new StringBuilder();
        out.append("model      ").append(s.model()).append("  (sha256 ").append(s.modelSha256()).append(")\n");
        out.append("data       ").append(s.data()).append('\n');
        out.append("reference  ").append(s.reference()).append(referenceAccuracy(report)).append('\n');
        out.append("target     ").append(s.target()).append(", byodt ").append(s.byodtVersion());
        if (report.shard() != null) out.append(", shard ").append(report.shard()).append(" of a ").append(report.sweepSize()).append("-configuration sweep");
        out.append("\n\n");
        out.append(table(report).render());
        out.append(perPositionNote(report));
        for (ReportEntry e : report.entries()) {
            if (!e.succeeded()) out.append("failed: ").append(describe(e)).append(": ").append(e.failure()).append('\n');
        }
        return out.toString();
    }

    private static String referenceAccuracy(ComparisonReport report) {
        OutputFigures first = report.entries().stream().filter(ReportEntry::succeeded).map(e -> e.outputs().get(0)).findFirst().orElse(null);
        if (first == null) return "";
        Double accuracy = first.top1().referenceAccuracy();
        return accuracy == null ? "" : "  (top-1 " + Figures.percent(accuracy) + " on " + first.top1().labeled() + " labelled items)";
    }

    /**
     * For each output compared position by position, what its "agree" counts: "agree of 'logits' is per position:
     * 16 per item, top-1 over axis 2".
     */
    static String perPositionNote(ComparisonReport report) {
        StringBuilder note = new StringBuilder();
        report.entries().stream().filter(ReportEntry::succeeded).findFirst().ifPresent(e -> {
            for (OutputFigures o : e.outputs()) {
                Top1Figures t = o.top1();
                if (t.classAxis() == null || t.items() == 0) continue;
                note.append("agree of '").append(o.output()).append("' is per position: ").append(t.positions() / t.items())
                    .append(" per item, top-1 over axis ").append(t.classAxis()).append('\n');
            }
        });
        return note.toString();
    }

    /** "fxp16_13 (accumulate exact, rounding truncate)". */
    static String describe(ReportEntry e) {
        return e.dtype() + " (accumulate " + e.accumulate() + ", rounding " + e.rounding() + ", overflow " + e.overflow() + ")";
    }

    private static TextTable table(ComparisonReport report) {
        boolean severalOutputs = report.entries().stream().anyMatch(e -> e.outputs().size() > 1);
        List<String> headers = new ArrayList<>(List.of("dtype", "accumulate", "rounding", "overflow"));
        if (severalOutputs) headers.add("output");
        headers.addAll(List.of("top-1", "drop", "agree", "max abs", "mean abs", "mean rel", "SQNR dB", "NaN", "inf", "sat"));
        boolean[] right = new boolean[headers.size()];
        for (int c = severalOutputs ? 5 : 4; c < right.length; c++) right[c] = true;
        TextTable table = new TextTable(headers, right);
        for (ReportEntry e : report.entries()) {
            if (!e.succeeded()) {
                List<String> row = new ArrayList<>(List.of(e.dtype(), e.accumulate(), e.rounding(), e.overflow()));
                if (severalOutputs) row.add("");
                row.add("failed");
                while (row.size() < headers.size()) row.add("");
                table.addRow(row);
            }
            for (OutputFigures o : e.outputs()) {
                List<String> row = new ArrayList<>(List.of(e.dtype(), e.accumulate(), e.rounding(), e.overflow()));
                if (severalOutputs) row.add(o.output());
                ErrorFigures f = o.errors();
                row.addAll(List.of(Figures.percent(o.top1().testAccuracy()), Figures.points(o.top1().drop()),
                    Figures.percent(o.top1().agreement()), Figures.error(f.maxAbsError()), Figures.error(f.meanAbsError()),
                    Figures.error(f.meanRelError()), Figures.decibels(f.sqnrDb()),
                    Long.toString(f.nan()), Long.toString(f.infinite()), Long.toString(f.saturated())));
                table.addRow(row);
            }
        }
        return table;
    }
}
