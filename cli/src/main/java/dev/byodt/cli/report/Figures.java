package dev.byodt.cli.report;

import java.util.Locale;

/** How figures read in tables and charts: accuracies as percentages, errors with three significant digits. */
public final class Figures {
    private Figures() {}

    /** 0.8912 -> "89.12%"; null (no labels) -> "-". */
    public static String percent(Double fraction) {
        return fraction == null ? "-" : String.format(Locale.ROOT, "%.2f%%", 100 * fraction);
    }

    /** Percentage points, signed: 1.5 -> "+1.50". */
    public static String points(Double points) {
        return points == null ? "-" : String.format(Locale.ROOT, "%+.2f", points);
    }

    public static String error(double value) {
        if (Double.isNaN(value)) return "-";
        return value == 0 ? "0" : String.format(Locale.ROOT, "%.3g", value);
    }

    /** SQNR in dB with one decimal; "inf" for an exact result. */
    public static String decibels(double value) {
        if (Double.isNaN(value)) return "-";
        if (Double.isInfinite(value)) return value > 0 ? "inf" : "-inf";
        return String.format(Locale.ROOT, "%.1f", value);
    }
}
