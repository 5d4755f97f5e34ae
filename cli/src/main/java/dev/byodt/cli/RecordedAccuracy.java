package dev.byodt.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The float32 accuracy a training script recorded beside the model (MODEL.json, as scripts/train_lenet5.py
 * writes it), so a run can show it next to what byodt measured.
 */
final class RecordedAccuracy {
    private RecordedAccuracy() {}

    /** "  (recorded at training: 89.00% on these 1000 images)", or "" when nothing matching was recorded. */
    static String describe(Path model, int imageCount) {
        String name = model.getFileName().toString().replaceFirst("\\.onnx$", "") + ".json";
        Path record = model.toAbsolutePath().resolveSibling(name);
        if (!Files.isRegularFile(record)) return "";
        JsonObject json;
        try {
            json = JsonParser.parseString(Files.readString(record)).getAsJsonObject();
        } catch (IOException | JsonParseException | IllegalStateException e) {
            return "";
        }
        for (String set : new String[] {"sample", "test"}) {
            String countKey = set + "_images", accuracyKey = "float32_" + set + "_accuracy";
            if (json.has(countKey) && json.has(accuracyKey) && json.get(countKey).getAsInt() == imageCount) {
                return String.format("  (recorded at training: %.2f%% on these %d images)",
                    100 * json.get(accuracyKey).getAsDouble(), imageCount);
            }
        }
        return "";
    }
}
