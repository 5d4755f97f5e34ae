package dev.byodt.cli.chart;

import dev.byodt.cli.report.Figures;
import dev.byodt.cli.report.LayerFigures;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;

import java.awt.Color;
import java.awt.Font;
import java.util.List;

/**
 * Where the error enters: one bar per intermediate tensor, in graph order, its height the tensor's SQNR
 * against float32. A falling staircase shows error accumulating; a sudden drop points at the layer where
 * the datatype loses. Tensors with infinite SQNR (exact) have no bar and are named in a subtitle, as are
 * tensors with no finite element to compare (every element NaN/NaR or infinite).
 */
public final class LayerChart {
    public static final int WIDTH = 900, HEIGHT = 500;

    private LayerChart() {}

    /** @param dtype the datatype compared, for the title */
    public static JFreeChart create(List<LayerFigures> layers, String dtype) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        StringBuilder exact = new StringBuilder(), notFinite = new StringBuilder();
        for (LayerFigures layer : layers) {
            double db = layer.errors().sqnrDb();
            if (Double.isFinite(db)) data.addValue(db, "SQNR", layer.tensor());
            else {
                data.addValue(null, "SQNR", layer.tensor());
                StringBuilder list = Double.isNaN(db) ? notFinite : exact;
                list.append(list.isEmpty() ? "" : ", ").append(layer.tensor()).append(Double.isNaN(db) ? "" : " (" + Figures.decibels(db) + ")");
            }
        }
        CategoryAxis tensors = new CategoryAxis("intermediate tensor, in graph order");
        tensors.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        tensors.setMaximumCategoryLabelWidthRatio(2);
        BarRenderer bars = new BarRenderer();
        bars.setBarPainter(new StandardBarPainter());
        bars.setShadowVisible(false);
        bars.setSeriesPaint(0, new Color(0x1f77b4));
        CategoryPlot plot = new CategoryPlot(data, tensors, new NumberAxis("SQNR against float32 (dB)"), bars);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart("Where the error enters: " + dtype + " per layer", new Font("SansSerif", Font.BOLD, 16), plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        if (!exact.isEmpty()) chart.addSubtitle(new TextTitle("no bar (exact): " + exact, new Font("SansSerif", Font.ITALIC, 11)));
        if (!notFinite.isEmpty()) {
            chart.addSubtitle(new TextTitle("no bar (every element NaN or infinite): " + notFinite, new Font("SansSerif", Font.ITALIC, 11)));
        }
        return chart;
    }
}
