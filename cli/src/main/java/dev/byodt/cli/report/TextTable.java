package dev.byodt.cli.report;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table for terminals: a header row, a rule, then rows; text columns left-aligned, figures right-aligned. */
public final class TextTable {
    private final List<String> headers;
    private final boolean[] rightAligned;
    private final List<List<String>> rows = new ArrayList<>();

    /** @param rightAligned per column, whether it holds figures */
    public TextTable(List<String> headers, boolean... rightAligned) {
        if (rightAligned.length != headers.size()) throw new IllegalArgumentException(headers.size() + " headers, " + rightAligned.length + " alignments");
        this.headers = List.copyOf(headers);
        this.rightAligned = rightAligned.clone();
    }

    public void addRow(List<String> cells) {
        if (cells.size() != headers.size()) throw new IllegalArgumentException(cells.size() + " cells for " + headers.size() + " columns");
        rows.add(List.copyOf(cells));
    }

    public String render() {
        int[] widths = new int[headers.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = headers.get(c).length();
            for (List<String> row : rows) widths[c] = Math.max(widths[c], row.get(c).length());
        }
        StringBuilder out = new StringBuilder();
        appendLine(out, headers, widths);
        List<String> rule = new ArrayList<>();
        for (int width : widths) rule.add("-".repeat(width));
        appendLine(out, rule, widths);
        for (List<String> row : rows) appendLine(out, row, widths);
        return out.toString();
    }

    private void appendLine(StringBuilder out, List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < cells.size(); c++) {
            if (c > 0) line.append("  ");
            String cell = cells.get(c), pad = " ".repeat(widths[c] - cell.length());
            line.append(rightAligned[c] ? pad + cell : cell + pad);
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }
}
