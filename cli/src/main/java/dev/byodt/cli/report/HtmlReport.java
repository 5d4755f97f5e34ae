package dev.byodt.cli.report;

import java.util.List;

/**
 * A self-contained HTML page for a report: the setup, the results table and the charts inlined as SVG,
 * with no scripts, stylesheets or images to fetch, so a CI system can publish the single file.
 */
public final class HtmlReport {
    private HtmlReport() {}

    /** @param svgCharts {@code <svg>} elements to show under the table */
    public static String render(ComparisonReport report, List<String> svgCharts) {
        RunSetup s = report.setup();
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>byodt: ")
            .append(escape(s.model())).append("</title>\n<style>\n")
            .append("body{font-family:sans-serif;margin:2em;color:#222}\n")
            .append("table{border-collapse:collapse;font-size:13px}\n")
            .append("th,td{border:1px solid #ccc;padding:3px 8px}\n")
            .append("td.n{text-align:right;font-variant-numeric:tabular-nums}\n")
            .append("dt{font-weight:bold}\n")
            .append("</style>\n</head>\n<body>\n<h1>byodt datatype comparison</h1>\n<dl>\n");
        definition(html, "model", s.model());
        definition(html, "model SHA-256", s.modelSha256());
        definition(html, "data", s.data());
        definition(html, "reference", s.reference());
        definition(html, "target", s.target());
        definition(html, "byodt", s.byodtVersion());
        if (report.shard() != null) definition(html, "shard", report.shard() + " of " + report.sweepSize() + " configurations");
        html.append("</dl>\n<table>\n<tr>");
        for (String h : List.of("dtype", "accumulate", "rounding", "overflow", "output", "reference top-1", "top-1", "drop (points)",
            "agreement", "max abs error", "mean abs error", "mean rel error", "SQNR (dB)", "NaN", "inf", "saturated")) {
            html.append("<th>").append(escape(h)).append("</th>");
        }
        html.append("</tr>\n");
        for (ReportEntry e : report.entries()) {
            if (!e.succeeded()) {
                html.append("<tr>");
                for (String text : List.of(e.dtype(), e.accumulate(), e.rounding(), e.overflow())) cell(html, text, false);
                html.append("<td colspan=\"12\">failed: ").append(escape(e.failure())).append("</td></tr>\n");
            }
            for (OutputFigures o : e.outputs()) {
                ErrorFigures f = o.errors();
                html.append("<tr>");
                for (String text : List.of(e.dtype(), e.accumulate(), e.rounding(), e.overflow(), o.output())) cell(html, text, false);
                for (String figure : List.of(Figures.percent(o.top1().referenceAccuracy()), Figures.percent(o.top1().testAccuracy()),
                    Figures.points(o.top1().drop()), Figures.percent(o.top1().agreement()), Figures.error(f.maxAbsError()),
                    Figures.error(f.meanAbsError()), Figures.error(f.meanRelError()), Figures.decibels(f.sqnrDb()),
                    Long.toString(f.nan()), Long.toString(f.infinite()), Long.toString(f.saturated()))) {
                    cell(html, figure, true);
                }
                html.append("</tr>\n");
            }
        }
        html.append("</table>\n");
        ReportTable.perPositionNote(report).lines().forEach(line -> html.append("<p>").append(escape(line)).append("</p>\n"));
        for (String svg : svgCharts) html.append("<div>\n").append(svg).append("\n</div>\n");
        return html.append("</body>\n</html>\n").toString();
    }

    private static void definition(StringBuilder html, String term, String value) {
        html.append("<dt>").append(escape(term)).append("</dt><dd>").append(escape(value)).append("</dd>\n");
    }

    private static void cell(StringBuilder html, String text, boolean figure) {
        html.append(figure ? "<td class=\"n\">" : "<td>").append(escape(text)).append("</td>");
    }

    static String escape(String text) {
        return text == null ? "" : text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
