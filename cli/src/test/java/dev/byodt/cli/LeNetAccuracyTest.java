package dev.byodt.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * `byodt run` on the shipped LeNet-5 reproduces the float32 accuracy that scripts/train_lenet5.py measured
 * with PyTorch: on the shipped sample, and on Debian's full Fashion-MNIST test set (installed by .ci/run).
 */
class LeNetAccuracyTest {
    private static final Path MODELS = Path.of(System.getProperty("byodt.modelsDir", "../models"));
    private static final Pattern TOP1 = Pattern.compile("top-1\\s+[0-9.]+% \\((\\d+)/(\\d+)\\)");

    @Test
    void sampleAccuracyEqualsTheRecordedOne() throws IOException {
        assertAccuracy(recorded("float32_sample_accuracy"), recordedCount("sample_images"), "run", lenet());
    }

    @Test
    void fullTestSetAccuracyEqualsTheRecordedOne() throws IOException {
        assertAccuracy(recorded("float32_test_accuracy"), recordedCount("test_images"), "run", lenet(), "--data", "fashion-mnist");
    }

    private static void assertAccuracy(double expected, int images, String... args) {
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(0, run.exitCode(), run.err());
        Matcher m = TOP1.matcher(run.out());
        assertTrue(m.find(), run.out());
        assertEquals(images, Integer.parseInt(m.group(2)));
        assertEquals(Math.round(expected * images), Integer.parseInt(m.group(1)), run.out());
        assertTrue(run.out().contains("recorded at training"), run.out());
    }

    private static String lenet() { return MODELS.resolve("lenet5-fashion.onnx").toString(); }

    private static JsonObject record() throws IOException {
        return JsonParser.parseString(Files.readString(MODELS.resolve("lenet5-fashion.json"))).getAsJsonObject();
    }

    private static double recorded(String key) throws IOException { return record().get(key).getAsDouble(); }

    private static int recordedCount(String key) throws IOException { return record().get(key).getAsInt(); }
}
