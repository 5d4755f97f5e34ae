package dev.byodt.cli.report;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.InputFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A {@link ComparisonReport} as JSON: the record's fields as they are named in Java, plus
 * {@code "format": "byodt-comparison-1"}. JSON has no infinity or NaN, and SQNR is +infinity for an exact
 * datatype, so non-finite numbers are written as the strings "Infinity", "-Infinity" and "NaN" (which
 * Python's float() and JavaScript's Number() both read); figures that do not apply, such as accuracy
 * without labels, are null.
 */
public final class ReportJson {
    public static final String FORMAT = "byodt-comparison-1";

    private static final Gson GSON = new GsonBuilder()
        .registerTypeAdapter(Double.class, new NonFiniteAsString().nullSafe())
        .registerTypeAdapter(double.class, new NonFiniteAsString())
        .setPrettyPrinting()
        .create();

    private ReportJson() {}

    public static String toJson(ComparisonReport report) {
        JsonObject root = new JsonObject();
        root.addProperty("format", FORMAT);
        GSON.toJsonTree(report).getAsJsonObject().entrySet().forEach(e -> root.add(e.getKey(), e.getValue()));
        return GSON.toJson(root) + "\n";
    }

    public static ComparisonReport read(Path file) {
        return fromJson(new String(InputFiles.readAllBytes(file), StandardCharsets.UTF_8), file.toString());
    }

    /** Parses a report; {@code source} names it in errors. */
    public static ComparisonReport fromJson(String json, String source) {
        try {
            JsonElement root = JsonParser.parseString(json);
            if (!root.isJsonObject() || !root.getAsJsonObject().has("format")
                || !FORMAT.equals(root.getAsJsonObject().get("format").getAsString())) {
                throw new ByodtException(source + " is not a byodt comparison report (no \"format\": \"" + FORMAT + "\")");
            }
            ComparisonReport report = GSON.fromJson(root, ComparisonReport.class);
            if (report.setup() == null || report.entries() == null) throw new ByodtException(source + " is missing its setup or entries");
            return report;
        } catch (JsonParseException | IllegalStateException | UnsupportedOperationException e) {
            throw new ByodtException(source + " is not a readable byodt report (" + e.getMessage() + ")");
        }
    }

    private static final class NonFiniteAsString extends TypeAdapter<Double> {
        @Override
        public void write(JsonWriter out, Double value) throws IOException {
            if (Double.isFinite(value)) out.value(value);
            else out.value(value.toString());
        }

        @Override
        public Double read(JsonReader in) throws IOException {
            if (in.peek() != JsonToken.STRING) return in.nextDouble();
            String text = in.nextString();
            return switch (text) {
                case "Infinity" -> Double.POSITIVE_INFINITY;
                case "-Infinity" -> Double.NEGATIVE_INFINITY;
                case "NaN" -> Double.NaN;
                default -> throw new JsonParseException("'" + text + "' is not a number");
            };
        }
    }
}
