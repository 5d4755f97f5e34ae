package dev.byodt.cli.chart;

import dev.byodt.cli.report.ComparisonReport;
import dev.byodt.cli.report.Figures;
import dev.byodt.cli.report.OutputFigures;
import dev.byodt.cli.report.ReportEntry;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.DefaultDrawingSupplier;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.Range;
import org.jfree.data.general.DatasetUtils;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Shape;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A sweep's chart: top-1 accuracy (top) and SQNR (bottom) against bit width, sharing the x axis, one line
 * per datatype family ({@link DatatypeAxis}), with the float32 reference's accuracy as a dashed horizontal
 * line. Fixed-point datatypes are drawn on a chart of their own against fraction bits. The figures are
 * those of the model's first output; without labels the top panel shows top-1 agreement with float32.
 * A point with infinite SQNR (bit-identical to float32) cannot be drawn and is named in a subtitle.
 * When a sweep has several accumulation or rounding modes, each mode is a family of its own. A float32
 * entry is the reference line, not a point. A family has the same colour in both panels. A configuration that
 * failed to compile is not drawn (the table names it).
 */
public final class SweepChart {
    public static final int WIDTH = 900, HEIGHT = 700;
    private static final Shape[] SHAPES = DefaultDrawingSupplier.createStandardSeriesShapes();
    private static final String REFERENCE_DTYPE = "float32";
    /** The rounding a sweep records for a datatype without a rounding option. */
    private static final String NOT_APPLICABLE = "-";

    private SweepChart() {}

    /** Which datatypes a chart shows: placed by total bits, or fixed point placed by fraction bits. */
    public enum Axis { BITS, FRACTION_BITS }

    /** Whether the report has datatypes for a chart on this axis. */
    public static boolean hasPoints(ComparisonReport report, Axis axis) {
        return report.entries().stream().anyMatch(e -> placed(e, axis) != null);
    }

    public static JFreeChart create(ComparisonReport report, Axis axis) {
        boolean labelled = report.entries().stream().filter(ReportEntry::succeeded).anyMatch(e -> first(e).top1().referenceAccuracy() != null);
        boolean severalAccumulations = report.entries().stream().map(ReportEntry::accumulate).distinct().count() > 1;
        boolean severalRoundings = report.entries().stream().map(ReportEntry::rounding).filter(r -> !r.equals(NOT_APPLICABLE)).distinct().count() > 1;
        Map<String, XYSeries> accuracy = new LinkedHashMap<>(), sqnr = new LinkedHashMap<>();
        StringBuilder notDrawn = new StringBuilder();
        Double referenceAccuracy = null;
        for (ReportEntry e : report.entries()) {
            DatatypeAxis at = placed(e, axis);
            if (at == null || e.dtype().equals(REFERENCE_DTYPE)) continue;
            String family = at.family() + (severalAccumulations ? ", acc " + e.accumulate() : "") + (severalRoundings && !e.rounding().equals(NOT_APPLICABLE) ? ", " + e.rounding() : "");
            OutputFigures f = first(e);
            if (labelled && referenceAccuracy == null) referenceAccuracy = f.top1().referenceAccuracy();
            Double top = labelled ? f.top1().testAccuracy() : f.top1().agreement();
            XYSeries a = accuracy.computeIfAbsent(family, XYSeries::new), s = sqnr.computeIfAbsent(family, XYSeries::new);
            if (top != null) a.add(at.x(), 100 * top);
            double db = f.errors().sqnrDb();
            if (Double.isFinite(db)) s.add(at.x(), db);
            else notDrawn.append(notDrawn.isEmpty() ? "" : ", ").append(e.dtype()).append(" (SQNR ").append(Figures.decibels(db)).append(")");
        }

        NumberAxis x = new NumberAxis(axis == Axis.BITS ? "bit width" : "fixed point: fraction bits P (fxpN_P)");
        x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        x.setAutoRangeIncludesZero(false);
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(x);
        plot.setGap(12);
        XYPlot top = panel(accuracy, labelled ? "top-1 accuracy (%)" : "top-1 agreement with float32 (%)", true);
        double reference = labelled ? (referenceAccuracy == null ? Double.NaN : 100 * referenceAccuracy) : 100;
        if (!Double.isNaN(reference)) {
            top.addRangeMarker(referenceLine(reference, "float32 " + String.format(Locale.ROOT, "%.2f%%", reference)));
            includeInRange(top, reference);
        }
        plot.add(top, 1);
        plot.add(panel(sqnr, "SQNR (dB)", false), 1);

        String what = axis == Axis.BITS ? "against bit width" : "of fixed point against fraction bits";
        JFreeChart chart = new JFreeChart("Accuracy and SQNR " + what, new Font("SansSerif", Font.BOLD, 16), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        chart.addSubtitle(new TextTitle(fileName(report.setup().model()) + " on " + report.setup().data() + "; reference: " + report.setup().reference(),
            new Font("SansSerif", Font.PLAIN, 11)));
        if (!notDrawn.isEmpty()) chart.addSubtitle(new TextTitle("not drawn: " + notDrawn, new Font("SansSerif", Font.ITALIC, 11)));
        return chart;
    }

    private static XYPlot panel(Map<String, XYSeries> series, String label, boolean inLegend) {
        XYSeriesCollection data = new XYSeriesCollection();
        series.values().forEach(data::addSeries);
        NumberAxis y = new NumberAxis(label);
        y.setAutoRangeIncludesZero(false);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        renderer.setDefaultSeriesVisibleInLegend(inLegend);
        for (int i = 0; i < series.size(); i++) {
            renderer.setSeriesStroke(i, new BasicStroke(2f));
            renderer.setSeriesPaint(i, SeriesColours.of(i));
            // Shapes advance one more step per round of colours, so no two of the first 100 families look alike.
            renderer.setSeriesShape(i, SHAPES[(i + i / SeriesColours.count()) % SHAPES.length]);
        }
        XYPlot plot = new XYPlot(data, null, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        return plot;
    }

    /** Widens the axis so the reference line shows even when every datatype is far below it (markers do not count in auto-range). */
    private static void includeInRange(XYPlot plot, double value) {
        Range data = DatasetUtils.findRangeBounds(plot.getDataset());
        double low = data == null ? value : Math.min(data.getLowerBound(), value);
        double high = data == null ? value : Math.max(data.getUpperBound(), value);
        double margin = Math.max((high - low) * 0.08, 0.5);
        plot.getRangeAxis().setRange(low - margin, high + margin);
    }

    private static ValueMarker referenceLine(double value, String label) {
        ValueMarker line = new ValueMarker(value, Color.DARK_GRAY,
            new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1, new float[] {6, 4}, 0));
        line.setLabel(label);
        line.setLabelFont(new Font("SansSerif", Font.PLAIN, 11));
        line.setLabelAnchor(RectangleAnchor.TOP_LEFT);
        line.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
        return line;
    }

    private static DatatypeAxis placed(ReportEntry e, Axis axis) {
        if (!e.succeeded()) return null;
        DatatypeAxis at = DatatypeAxis.of(e.dtype());
        if (at == null || at.byFractionBits() != (axis == Axis.FRACTION_BITS)) return null;
        return at;
    }

    private static OutputFigures first(ReportEntry e) { return e.outputs().get(0); }

    private static String fileName(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }
}
