package dev.byodt.cli.train;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import dev.byodt.cli.chart.ChartFiles;
import dev.byodt.compiler.train.StepStatistics;
import dev.byodt.runtime.AtomicFiles;
import dev.byodt.runtime.ByodtException;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The record of a training run, written after every epoch so that an interrupted run keeps what it did:
 * history.csv (one row per epoch), history.json (the configuration and the epochs), and the loss and accuracy
 * charts as PNG and SVG. {@link #read} loads a history.json back, to compare runs ({@link TrainingComparison}).
 */
public final class TrainingHistory {
    private static final int WIDTH = 640;
    private static final int HEIGHT = 400;
    /** The configuration's --multiply-add, which history.csv repeats on every row so that each row stands alone. */
    public static final String MULTIPLY_ADD = "multiply_add";

    private final Map<String, String> configuration;
    private final List<EpochRecord> epochs = new ArrayList<>();

    /** @param configuration what was trained and how (model, datatype, optimizer, ...), in the order to print it */
    public TrainingHistory(Map<String, String> configuration) {
        this.configuration = configuration;
    }

    public void add(EpochRecord epoch) { epochs.add(epoch); }

    public Map<String, String> configuration() { return configuration; }

    public List<EpochRecord> epochs() { return epochs; }

    /** The history a run wrote into {@code folder} (its history.json), as many epochs as it finished. */
    public static TrainingHistory read(Path folder) {
        Path file = folder.resolve("history.json");
        if (!Files.isRegularFile(file)) throw new ByodtException("no training history " + file + " (byodt train writes it after each epoch)");
        try {
            JsonObject root = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
            Map<String, String> configuration = new LinkedHashMap<>();
            field(root, "configuration", "the file").getAsJsonObject().entrySet()
                .forEach(e -> configuration.put(e.getKey(), e.getValue().getAsString()));
            TrainingHistory history = new TrainingHistory(configuration);
            JsonArray epochs = field(root, "epochs", "the file").getAsJsonArray();
            for (int i = 0; i < epochs.size(); i++) {
                JsonObject o = epochs.get(i).getAsJsonObject();
                String where = "epoch entry " + (i + 1);
                history.add(new EpochRecord(field(o, "epoch", where).getAsInt(), field(o, "loss", where).getAsDouble(),
                    field(o, "train_top1", where).getAsDouble(), field(o, "test_top1", where).getAsDouble(),
                    field(o, "seconds", where).getAsDouble(), new StepStatistics.Counts(
                        field(o, "zero_gradients", where).getAsLong(), field(o, "saturated_gradients", where).getAsLong(),
                        field(o, "vanished_updates", where).getAsLong(), field(o, "saturated_updates", where).getAsLong())));
            }
            return history;
        } catch (IOException e) {
            throw new ByodtException("cannot read " + file + ": " + e.getMessage());
        } catch (JsonParseException | IllegalStateException | UnsupportedOperationException | ClassCastException e) {
            throw new ByodtException(file + " is not a training history: " + e.getMessage());
        }
    }

    /** The member {@code name} of {@code object}, which a history always has; {@code where} names the object in the error. */
    private static JsonElement field(JsonObject object, String name, String where) {
        JsonElement member = object.get(name);
        if (member == null || member.isJsonNull()) throw new JsonParseException(where + " has no \"" + name + "\"");
        return member;
    }

    /** Writes every file into {@code folder}. */
    public void write(Path folder) {
        AtomicFiles.writeString(folder.resolve("history.csv"), csv());
        AtomicFiles.writeString(folder.resolve("history.json"), json());
        writeChart(folder, "loss", chart("Training loss", "loss", List.of(new Series("loss", EpochRecord::loss))));
        writeChart(folder, "accuracy", chart("Top-1 accuracy", "top-1 %", List.of(
            new Series("train", EpochRecord::trainTop1), new Series("test", EpochRecord::testTop1))));
    }

    String csv() {
        StringBuilder text = new StringBuilder("epoch,loss,train_top1,test_top1,seconds,"
            + "zero_gradients,saturated_gradients,vanished_updates,saturated_updates," + MULTIPLY_ADD + "\n");
        for (EpochRecord e : epochs) {
            StepStatistics.Counts c = e.counts();
            text.append(String.format(Locale.ROOT, "%d,%.6f,%.4f,%.4f,%.3f,%d,%d,%d,%d,%s%n", e.epoch(), e.loss(), e.trainTop1(),
                e.testTop1(), e.seconds(), c.zeroGradients(), c.saturatedGradients(), c.vanishedUpdates(), c.saturatedUpdates(),
                configuration.getOrDefault(MULTIPLY_ADD, "")));
        }
        return text.toString();
    }

    String json() {
        JsonObject root = new JsonObject();
        JsonObject config = new JsonObject();
        configuration.forEach(config::addProperty);
        root.add("configuration", config);
        JsonArray list = new JsonArray();
        for (EpochRecord e : epochs) {
            JsonObject o = new JsonObject();
            o.addProperty("epoch", e.epoch());
            o.addProperty("loss", e.loss());
            o.addProperty("train_top1", e.trainTop1());
            o.addProperty("test_top1", e.testTop1());
            o.addProperty("seconds", e.seconds());
            o.addProperty("zero_gradients", e.counts().zeroGradients());
            o.addProperty("saturated_gradients", e.counts().saturatedGradients());
            o.addProperty("vanished_updates", e.counts().vanishedUpdates());
            o.addProperty("saturated_updates", e.counts().saturatedUpdates());
            list.add(o);
        }
        root.add("epochs", list);
        return new GsonBuilder().setPrettyPrinting().create().toJson(root) + "\n";
    }

    private record Series(String name, ToDoubleFunction<EpochRecord> value) {}

    private JFreeChart chart(String title, String axis, List<Series> series) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Series s : series) {
            XYSeries points = new XYSeries(s.name());
            for (EpochRecord e : epochs) points.add(e.epoch(), s.value().applyAsDouble(e));
            data.addSeries(points);
        }
        return ChartFactory.createXYLineChart(title + " (" + configuration.getOrDefault("dtype", "") + ")", "epoch", axis,
            data, PlotOrientation.VERTICAL, series.size() > 1, false, false);
    }

    private static void writeChart(Path folder, String name, JFreeChart chart) {
        ChartFiles.writePng(chart, folder.resolve(name + ".png"), WIDTH, HEIGHT);
        ChartFiles.writeSvg(chart, folder.resolve(name + ".svg"), WIDTH, HEIGHT);
    }
}
