package dev.byodt.cli.sweep;

import dev.byodt.cli.chart.ChartFiles;
import dev.byodt.cli.chart.SweepChart;
import dev.byodt.cli.report.ComparisonReport;
import dev.byodt.cli.report.HtmlReport;
import dev.byodt.cli.report.ReportCsv;
import dev.byodt.cli.report.ReportJson;
import dev.byodt.runtime.AtomicFiles;
import org.jfree.chart.JFreeChart;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The files a sweep writes into its --out folder: results.json, results.csv, chart-bits.png/.svg (and
 * chart-fraction-bits.png/.svg when the sweep has fixed-point datatypes) and report.html. Every file is
 * rendered in memory first and only then written, each atomically, so a failure leaves no half-written file.
 */
public final class SweepOutputs {
    private SweepOutputs() {}

    /** Writes the files and returns their paths in the order written. */
    public static List<Path> write(ComparisonReport report, Path outDir) {
        Map<Path, byte[]> files = new LinkedHashMap<>();
        files.put(outDir.resolve("results.json"), bytes(ReportJson.toJson(report)));
        files.put(outDir.resolve("results.csv"), bytes(ReportCsv.toCsv(report)));
        List<String> inlineSvgs = new ArrayList<>();
        for (SweepChart.Axis axis : SweepChart.Axis.values()) {
            if (!SweepChart.hasPoints(report, axis)) continue;
            JFreeChart chart = SweepChart.create(report, axis);
            String base = axis == SweepChart.Axis.BITS ? "chart-bits" : "chart-fraction-bits";
            files.put(outDir.resolve(base + ".png"), ChartFiles.png(chart, SweepChart.WIDTH, SweepChart.HEIGHT));
            files.put(outDir.resolve(base + ".svg"), bytes(ChartFiles.svgDocument(chart, SweepChart.WIDTH, SweepChart.HEIGHT)));
            inlineSvgs.add(ChartFiles.svgElement(chart, SweepChart.WIDTH, SweepChart.HEIGHT));
        }
        files.put(outDir.resolve("report.html"), bytes(HtmlReport.render(report, inlineSvgs)));
        files.forEach(AtomicFiles::write);
        return List.copyOf(files.keySet());
    }

    private static byte[] bytes(String text) { return text.getBytes(StandardCharsets.UTF_8); }
}
