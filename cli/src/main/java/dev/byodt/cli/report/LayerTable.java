package dev.byodt.cli.report;

import java.util.List;

/** The per-layer comparison as a text table, one row per intermediate tensor in graph order. */
public final class LayerTable {
    private LayerTable() {}

    public static String render(List<LayerFigures> layers) {
        TextTable table = new TextTable(List.of("#", "tensor", "elements", "SQNR dB", "max abs", "mean abs", "NaN", "inf", "sat"),
            true, false, true, true, true, true, true, true, true);
        for (int i = 0; i < layers.size(); i++) {
            LayerFigures layer = layers.get(i);
            ErrorFigures f = layer.errors();
            table.addRow(List.of(Integer.toString(i + 1), layer.tensor(), Long.toString(f.elements()), Figures.decibels(f.sqnrDb()),
                Figures.error(f.maxAbsError()), Figures.error(f.meanAbsError()),
                Long.toString(f.nan()), Long.toString(f.infinite()), Long.toString(f.saturated())));
        }
        return table.render();
    }
}
