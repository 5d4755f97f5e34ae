package dev.byodt.cli.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@link ComparisonReport} as CSV (RFC 4180: comma-separated, CRLF line ends, fields holding a comma, quote
 * or line break enclosed in double quotes with quotes doubled): one header line, then one row per
 * configuration and model output, carrying every figure and the full setup so each row stands alone.
 * Accuracies are fractions in [0, 1]; an output of rank 3 or more is compared at each of its "positions" over
 * its "class_axis" (empty for one position per item); numbers use Java's shortest exact decimal form ("Infinity" for an
 * exact datatype's SQNR); a figure that does not apply is an empty field. A configuration that failed has one
 * row with empty figures and its reason in the last column, "failure".
 */
public final class ReportCsv {
    public static final List<String> COLUMNS = List.of(
        "index", "dtype", "accumulate", "rounding", "overflow", "output",
        "items", "labeled", "reference_top1", "test_top1", "top1_agreement", "positions", "class_axis",
        "elements", "compared", "max_abs_error", "mean_abs_error", "mean_rel_error", "sqnr_db",
        "nan", "infinite", "saturated",
        "model", "model_sha256", "target", "multiply_add", "byodt_version", "data", "reference", "shard", "failure");

    private ReportCsv() {}

    public static String toCsv(ComparisonReport report) {
        StringBuilder out = new StringBuilder();
        appendRow(out, COLUMNS);
        RunSetup s = report.setup();
        for (ReportEntry e : report.entries()) {
            if (!e.succeeded()) {
                List<String> row = new ArrayList<>(List.of(Integer.toString(e.index()), e.dtype(), e.accumulate(), e.rounding(), e.overflow()));
                while (row.size() < COLUMNS.indexOf("model")) row.add("");
                row.addAll(List.of(s.model(), s.modelSha256(), s.target(), orEmpty(s.multiplyAdd()), s.byodtVersion(), s.data(), s.reference(),
                    report.shard() == null ? "" : report.shard(), e.failure()));
                appendRow(out, row);
            }
            for (OutputFigures o : e.outputs()) {
                Top1Figures t = o.top1();
                ErrorFigures f = o.errors();
                appendRow(out, List.of(
                    Integer.toString(e.index()), e.dtype(), e.accumulate(), e.rounding(), e.overflow(), o.output(),
                    Long.toString(t.items()), Long.toString(t.labeled()), number(t.referenceAccuracy()), number(t.testAccuracy()),
                    number(t.agreement()), Long.toString(t.positions()), t.classAxis() == null ? "" : t.classAxis().toString(),
                    Long.toString(f.elements()), Long.toString(f.compared()), number(f.maxAbsError()), number(f.meanAbsError()),
                    number(f.meanRelError()), number(f.sqnrDb()),
                    Long.toString(f.nan()), Long.toString(f.infinite()), Long.toString(f.saturated()),
                    s.model(), s.modelSha256(), s.target(), orEmpty(s.multiplyAdd()), s.byodtVersion(), s.data(), s.reference(),
                    report.shard() == null ? "" : report.shard(), ""));
            }
        }
        return out.toString();
    }

    /** A setup field that reports written before it existed lack (read back by sweep-merge). */
    private static String orEmpty(String field) {
        return field == null ? "" : field;
    }

    private static String number(Double value) {
        return value == null ? "" : String.valueOf(value);
    }

    private static void appendRow(StringBuilder out, List<String> fields) {
        List<String> quoted = new ArrayList<>(fields.size());
        for (String field : fields) quoted.add(quote(field == null ? "" : field));
        out.append(String.join(",", quoted)).append("\r\n");
    }

    public static String quote(String field) {
        boolean needsQuotes = field.contains(",") || field.contains("\"") || field.contains("\n") || field.contains("\r");
        return needsQuotes ? "\"" + field.replace("\"", "\"\"") + "\"" : field;
    }
}
