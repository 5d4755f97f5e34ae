package dev.byodt.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.byodt.cli.compare.OnnxRuntimeInference;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.LabeledImages;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped vision transformer (scripts/train_vit_fashion.py) runs out of the box: `byodt run` in float32
 * reproduces the sample accuracy PyTorch recorded at training, and its logits are ONNX Runtime's to 1e-4 of
 * the largest logit magnitude (attention's Softmax and LayerNormalization sum in a different order).
 */
class VitFashionTest {
    private static final Path MODELS = Path.of(System.getProperty("byodt.modelsDir", "../models"));
    private static final Path VIT = MODELS.resolve("vit-fashion.onnx");
    private static final Pattern TOP1 = Pattern.compile("top-1\\s+[0-9.]+% \\((\\d+)/(\\d+)\\)");
    private static final int PIXELS = 28 * 28;

    @TempDir
    Path tmp;

    @Test
    void sampleAccuracyEqualsTheRecordedOne() throws IOException {
        JsonObject record = JsonParser.parseString(Files.readString(MODELS.resolve("vit-fashion.json"))).getAsJsonObject();
        int images = record.get("sample_images").getAsInt();
        CommandLineRun run = CommandLineRun.of("run", VIT.toString());
        assertEquals(0, run.exitCode(), run.err());
        Matcher m = TOP1.matcher(run.out());
        assertTrue(m.find(), run.out());
        assertEquals(images, Integer.parseInt(m.group(2)));
        assertEquals(Math.round(record.get("float32_sample_accuracy").getAsDouble() * images), Integer.parseInt(m.group(1)), run.out());
    }

    @Test
    void float32LogitsMatchOnnxRuntime() throws IOException {
        Path json = tmp.resolve("vit.json");
        CommandLineRun run = CommandLineRun.of("run", VIT.toString(), "--reference", "onnxruntime", "--json", json.toString());
        assertEquals(0, run.exitCode(), run.err());
        JsonObject output = JsonParser.parseString(Files.readString(json)).getAsJsonObject()
            .getAsJsonArray("entries").get(0).getAsJsonObject().getAsJsonArray("outputs").get(0).getAsJsonObject();
        double maxAbsError = output.getAsJsonObject("errors").get("maxAbsError").getAsDouble();
        double largest = largestOnnxRuntimeLogit(output.getAsJsonObject("top1").get("items").getAsInt());
        assertTrue(maxAbsError <= 1e-4 * largest, "max abs difference " + maxAbsError + ", largest logit " + largest);
    }

    /** The largest |logit| ONNX Runtime gives on the first {@code images} sample images, one image per call. */
    private static double largestOnnxRuntimeLogit(int images) {
        LabeledImages data = IdxReader.readTestSet(MODELS.resolve("fashion-mnist-sample"), images);
        float[] pixels = data.images().toFloatArray();
        TensorSpec input = new TensorSpec("image", ElementType.FLOAT32, new long[] {1, 1, 28, 28});
        TensorSpec logits = new TensorSpec("logits", ElementType.FLOAT32, new long[] {1, 10});
        double largest = 0;
        try (OnnxRuntimeInference reference = OnnxRuntimeInference.open(VIT, input, List.of(logits))) {
            for (int i = 0; i < images; i++) {
                float[] image = Arrays.copyOfRange(pixels, i * PIXELS, (i + 1) * PIXELS);
                for (float logit : reference.run(image, 0)[0]) largest = Math.max(largest, Math.abs(logit));
            }
        }
        return largest;
    }
}
