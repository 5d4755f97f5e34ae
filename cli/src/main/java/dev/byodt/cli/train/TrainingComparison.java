package dev.byodt.cli.train;

import dev.byodt.cli.chart.ChartFiles;
import dev.byodt.cli.chart.SeriesColours;
import dev.byodt.cli.report.ReportCsv;
import dev.byodt.runtime.AtomicFiles;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Training runs side by side (each a folder {@code byodt train --out} wrote): the test top-1 after every epoch and
 * the time the epochs took, as a Markdown table, a CSV file and one chart with a line per run. A run is named by
 * its datatype, with ", float32 master weights" when it kept them; a setting that differs between the runs
 * (the optimizer's, the loss, the batches, the loss scale, the data) gets a column of its own in the table, so
 * that runs are compared knowingly. A run still going shows the epochs it finished.
 */
public final class TrainingComparison {
    private static final int WIDTH = 800;
    private static final int HEIGHT = 500;
    /** Settings that, when they differ between runs, the table shows (the datatype and master weights name the run). */
    private static final List<String> SETTINGS = List.of("optimizer", "loss", "batches", "loss scale", "data", "test", "model");

    private final List<String> names;
    private final List<TrainingHistory> runs;
    private final List<String> differing;

    /** @param folders the runs' folders, in the order to show them */
    public TrainingComparison(List<Path> folders) {
        runs = folders.stream().map(TrainingHistory::read).toList();
        names = uniqueNames(folders, runs);
        differing = SETTINGS.stream()
            .filter(key -> runs.stream().map(r -> r.configuration().getOrDefault(key, "")).distinct().count() > 1).toList();
    }

    /** Writes training.md, training.csv and test-accuracy.png/.svg into {@code folder}; returns the files' names. */
    public List<String> write(Path folder) {
        AtomicFiles.writeString(folder.resolve("training.md"), markdown());
        AtomicFiles.writeString(folder.resolve("training.csv"), csv());
        JFreeChart chart = chart();
        ChartFiles.writePng(chart, folder.resolve("test-accuracy.png"), WIDTH, HEIGHT);
        ChartFiles.writeSvg(chart, folder.resolve("test-accuracy.svg"), WIDTH, HEIGHT);
        return List.of("training.md", "training.csv", "test-accuracy.png", "test-accuracy.svg");
    }

    /** One row per run: its test top-1 after each epoch, then the epochs' total time (training and testing). */
    public String markdown() {
        int epochs = runs.stream().mapToInt(r -> r.epochs().size()).max().orElse(0);
        StringBuilder text = new StringBuilder("| run |");
        differing.forEach(key -> text.append(' ').append(key).append(" |"));
        for (int e = 1; e <= epochs; e++) text.append(" epoch ").append(e).append(" |");
        text.append(" time |\n|---|");
        text.append("---|".repeat(differing.size() + epochs)).append("---|\n");
        for (int i = 0; i < runs.size(); i++) {
            TrainingHistory run = runs.get(i);
            text.append("| ").append(names.get(i)).append(" |");
            differing.forEach(key -> text.append(' ').append(run.configuration().getOrDefault(key, "")).append(" |"));
            for (int e = 0; e < epochs; e++) {
                text.append(e < run.epochs().size() ? String.format(Locale.ROOT, " %.2f%% |", run.epochs().get(e).testTop1()) : " |");
            }
            text.append(' ').append(duration(seconds(run))).append(" |\n");
        }
        return text.toString();
    }

    /** One row per run and epoch. */
    String csv() {
        StringBuilder text = new StringBuilder("run,dtype,master_weights,optimizer,epoch,loss,train_top1,test_top1,seconds\n");
        for (int i = 0; i < runs.size(); i++) {
            TrainingHistory run = runs.get(i);
            String prefix = String.join(",", ReportCsv.quote(names.get(i)), ReportCsv.quote(run.configuration().get("dtype")),
                masterWeights(run) ? "float32" : "", ReportCsv.quote(run.configuration().getOrDefault("optimizer", "")));
            for (EpochRecord e : run.epochs()) {
                text.append(prefix).append(String.format(Locale.ROOT, ",%d,%.6f,%.4f,%.4f,%.3f%n",
                    e.epoch(), e.loss(), e.trainTop1(), e.testTop1(), e.seconds()));
            }
        }
        return text.toString();
    }

    JFreeChart chart() {
        XYSeriesCollection data = new XYSeriesCollection();
        for (int i = 0; i < runs.size(); i++) {
            XYSeries points = new XYSeries(names.get(i));
            for (EpochRecord e : runs.get(i).epochs()) points.add(e.epoch(), e.testTop1());
            data.addSeries(points);
        }
        JFreeChart chart = ChartFactory.createXYLineChart("Test top-1 after each epoch", "epoch", "test top-1 %",
            data, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        ((NumberAxis) plot.getDomainAxis()).setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        ((NumberAxis) plot.getRangeAxis()).setAutoRangeIncludesZero(false);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < runs.size(); i++) {
            renderer.setSeriesPaint(i, SeriesColours.of(i));
            renderer.setSeriesStroke(i, new BasicStroke(2f));
        }
        plot.setRenderer(renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        return chart;
    }

    private static boolean masterWeights(TrainingHistory run) { return run.configuration().containsKey("master"); }

    /** The datatype (and master weights); a name two runs share gets each run's folder name too, as the chart's legend needs. */
    private static List<String> uniqueNames(List<Path> folders, List<TrainingHistory> runs) {
        List<String> plain = runs.stream()
            .map(r -> r.configuration().getOrDefault("dtype", "?") + (masterWeights(r) ? ", float32 master weights" : "")).toList();
        Set<String> seen = new LinkedHashSet<>(), repeated = new LinkedHashSet<>();
        plain.forEach(name -> { if (!seen.add(name)) repeated.add(name); });
        List<String> names = new ArrayList<>();
        for (int i = 0; i < plain.size(); i++) {
            names.add(repeated.contains(plain.get(i)) ? plain.get(i) + " (" + folders.get(i).getFileName() + ")" : plain.get(i));
        }
        return names;
    }

    private static double seconds(TrainingHistory run) {
        return run.epochs().stream().collect(Collectors.summingDouble(EpochRecord::seconds));
    }

    /** 5.4 s, 12 min 05 s, 2 h 03 min. */
    static String duration(double seconds) {
        if (seconds < 60) return String.format(Locale.ROOT, "%.1f s", seconds);
        long whole = Math.round(seconds);
        if (whole < 3600) return String.format(Locale.ROOT, "%d min %02d s", whole / 60, whole % 60);
        long minutes = Math.round(seconds / 60);
        return String.format(Locale.ROOT, "%d h %02d min", minutes / 60, minutes % 60);
    }
}
