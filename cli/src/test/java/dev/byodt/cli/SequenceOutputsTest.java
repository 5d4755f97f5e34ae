package dev.byodt.cli;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.byodt.cli.OnnxModels.FLOAT;
import static dev.byodt.cli.OnnxModels.INT64;
import static dev.byodt.cli.OnnxModels.integer;
import static dev.byodt.cli.OnnxModels.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * `run` and `sweep` on models whose input is token ids and whose outputs have a position axis, as a user runs
 * them: a tiny language model ([1, 6] int64 tokens to [1, 6, 7] logits) on an int64 .npy, and a segmentation
 * map ([1, 4, 3, 3], classes on axis 1) on a float .npy.
 */
class SequenceOutputsTest {
    private static final int ITEMS = 5, SEQ = 6, VOCAB = 7, DIM = 5;

    @TempDir
    Path tmp;

    /**
     * Embedding (Gather), a running sum over the sequence (CumSum) and a projection to the vocabulary (MatMul).
     * {@code tokens} is the input's sequence dimension: a number, or a name for a symbolic one.
     */
    private Path languageModel(Object tokens) throws IOException {
        float[] embedding = new float[VOCAB * DIM], projection = new float[DIM * VOCAB];
        for (int k = 0; k < embedding.length; k++) embedding[k] = (float) Math.sin(1.3 * k);
        for (int k = 0; k < projection.length; k++) projection[k] = (float) Math.cos(0.7 * k);
        return OnnxModels.graph()
            .symbolicInput("input_ids", INT64, 1L, tokens)
            .output("logits", FLOAT, 1, SEQ, VOCAB)
            .floatValues("embedding", new long[] {VOCAB, DIM}, embedding)
            .floatValues("projection", new long[] {DIM, VOCAB}, projection)
            .longs("sequence_axis", 1)
            .node(node("Gather", "embed", new String[] {"embedding", "input_ids"}, "e"))
            .node(node("CumSum", "context", new String[] {"e", "sequence_axis"}, "c"))
            .node(node("MatMul", "vocabulary", new String[] {"c", "projection"}, "logits"))
            .write(tmp.resolve("lm.onnx"));
    }

    private Path tokens(long... extra) throws IOException {
        long[] ids = new long[ITEMS * SEQ];
        for (int k = 0; k < ids.length; k++) ids[k] = (3L * k + 1) % VOCAB;
        System.arraycopy(extra, 0, ids, 0, extra.length);
        return NpyFiles.longs(tmp.resolve("tokens.npy"), new long[] {ITEMS, SEQ}, ids);
    }

    private static JsonObject json(Path file) throws IOException {
        return JsonParser.parseString(Files.readString(file)).getAsJsonObject();
    }

    private static JsonObject top1(JsonObject report) {
        return report.getAsJsonArray("entries").get(0).getAsJsonObject().getAsJsonArray("outputs").get(0).getAsJsonObject()
            .getAsJsonObject("top1");
    }

    @Test
    void tokenIdsFromInt64NpyAgreePerPositionWithOnnxRuntime() throws IOException {
        Path model = languageModel((long) SEQ), report = tmp.resolve("r.json"), csv = tmp.resolve("r.csv");
        CommandLineRun run = CommandLineRun.of("run", model.toString(), "--data", tokens().toString(), "--reference", "onnxruntime",
            "--json", report.toString(), "--csv", csv.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("agree of 'logits' is per position: 6 per item, top-1 over axis 2"), run.out());
        JsonObject top1 = top1(json(report));
        assertEquals(ITEMS, top1.get("items").getAsLong());
        assertEquals(ITEMS * SEQ, top1.get("positions").getAsLong());
        assertEquals(2, top1.get("classAxis").getAsInt());
        assertEquals(1.0, top1.get("agreement").getAsDouble());
        List<String> lines = Files.readAllLines(csv);
        List<String> header = List.of(lines.get(0).split(",")), row = List.of(lines.get(1).split(","));
        assertEquals(String.valueOf(ITEMS * SEQ), row.get(header.indexOf("positions")));
        assertEquals("2", row.get(header.indexOf("class_axis")));
    }

    @Test
    void theClassAxisCanBeAnotherAxisCountedFromTheEnd() throws IOException {
        Path model = languageModel((long) SEQ), report = tmp.resolve("r.json");
        CommandLineRun run = CommandLineRun.of("run", model.toString(), "--data", tokens().toString(), "--dtype", "fxp8_4",
            "--class-axis", "-2", "--json", report.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("agree of 'logits' is per position: 7 per item, top-1 over axis 1"), run.out());
        JsonObject top1 = top1(json(report));
        assertEquals(ITEMS * VOCAB, top1.get("positions").getAsLong());
        assertEquals(1, top1.get("classAxis").getAsInt());
    }

    @Test
    void aSegmentationMapIsScoredAtEveryPixel() throws IOException {
        float[] weights = {1, -1, 0.5f, 2, -2, 1, 0.25f, -0.5f};
        Path model = OnnxModels.graph()
            .input("image", FLOAT, 1, 2, 3, 3)
            .output("segments", FLOAT, 1, 4, 3, 3)
            .floatValues("w", new long[] {4, 2, 1, 1}, weights)
            .node(node("Conv", "classify", new String[] {"image", "w"}, "segments"))
            .write(tmp.resolve("segment.onnx"));
        float[] pixels = new float[3 * 2 * 3 * 3];
        for (int k = 0; k < pixels.length; k++) pixels[k] = (float) Math.sin(k);
        Path data = NpyFiles.floats(tmp.resolve("x.npy"), new long[] {3, 2, 3, 3}, pixels), out = tmp.resolve("sweep");
        CommandLineRun sweep = CommandLineRun.of("sweep", model.toString(), "--data", data.toString(), "--dtypes", "fxp16_8,bfloat16",
            "--class-axis", "1", "--out", out.toString());
        assertEquals(0, sweep.exitCode(), sweep.err());
        assertTrue(sweep.out().contains("agree of 'segments' is per position: 9 per item, top-1 over axis 1"), sweep.out());
        assertTrue(Files.readString(out.resolve("report.html")).contains("<p>agree of 'segments' is per position: 9 per item, top-1 over axis 1</p>"));
        JsonObject top1 = top1(json(out.resolve("results.json")));
        assertEquals(27, top1.get("positions").getAsLong());
        assertEquals(1, top1.get("classAxis").getAsInt());
    }

    @Test
    void wrongClassAxesLabelsAndTokensAreOneLineErrors() throws IOException {
        Path model = languageModel((long) SEQ), data = tokens();
        CommandLineRun batchAxis = CommandLineRun.of("run", model.toString(), "--data", data.toString(), "--dtype", "bfloat16",
            "--class-axis", "0");
        assertEquals(1, batchAxis.exitCode());
        assertTrue(batchAxis.oneLineError(), batchAxis.err());
        assertTrue(batchAxis.err().contains("--class-axis 0 does not name a class axis of output 'logits' of shape 1x6x7 (1 to 2, or -1 to -2;"
            + " axis 0 is the batch)"), batchAxis.err());

        Path labels = NpyFiles.longs(tmp.resolve("labels.npy"), 0, 1, 2, 3, 4);
        CommandLineRun labelled = CommandLineRun.of("run", model.toString(), "--data", data.toString(), "--labels", labels.toString(),
            "--dtype", "bfloat16");
        assertEquals(1, labelled.exitCode());
        assertTrue(labelled.oneLineError(), labelled.err());
        assertTrue(labelled.err().contains("the labels give one class per item, but output 'logits' of shape 1x6x7 has 6 positions per item"),
            labelled.err());

        CommandLineRun float32Alone = CommandLineRun.of("run", model.toString(), "--data", data.toString(), "--labels", labels.toString());
        assertEquals(1, float32Alone.exitCode());
        assertTrue(float32Alone.err().contains("the labels give one class per item, but output 'logits'"), float32Alone.err());

        CommandLineRun huge = CommandLineRun.of("run", model.toString(), "--data", tokens(1L << 25).toString(), "--dtype", "bfloat16");
        assertEquals(1, huge.exitCode());
        assertTrue(huge.oneLineError(), huge.err());
        assertTrue(huge.err().contains("element 0 is 33554432, beyond the integers float32 holds exactly (2^24)"), huge.err());
    }

    /**
     * With --test-data the token ids are bound at compile time, so the whole model folds; run says so, --shape may
     * name them (with the data's shape), and the outputs match ONNX Runtime's.
     */
    @Test
    void testDataBindsTokenIdsAndSaysSo() throws IOException, OrtException {
        Path model = languageModel("sequence"), set = Files.createDirectories(tmp.resolve("test_data_set_0"));
        long[] ids = {3, 1, 4, 1, 5, 6};
        Tensor input = Tensor.ofLongs(new long[] {1, SEQ}, ids);
        TensorProtos.write(set.resolve("input_0.pb"), new NamedTensor("input_ids", input));
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession session = env.createSession(model.toString(), new OrtSession.SessionOptions());
             OnnxTensor tensor = OnnxTensor.createTensor(env, LongBuffer.wrap(ids), new long[] {1, SEQ});
             OrtSession.Result result = session.run(Map.of("input_ids", tensor))) {
            FloatBuffer logits = ((OnnxTensor) result.get(0)).getFloatBuffer();
            float[] expected = new float[logits.remaining()];
            logits.get(expected);
            TensorProtos.write(set.resolve("output_0.pb"), new NamedTensor("logits", Tensor.ofFloats(new long[] {1, SEQ, VOCAB}, expected)));
        }

        CommandLineRun run = CommandLineRun.of("run", model.toString(), "--test-data", set.toString(), "--shape", "input_ids=1,6");
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("test_data_set_0  input 'input_ids' int64[1x6]: bound at compile time"), run.out());
        assertTrue(run.out().contains("test_data_set_0  output 0 'logits'"), run.out());

        CommandLineRun misspelt = CommandLineRun.of("run", model.toString(), "--test-data", set.toString(), "--shape", "ids=1,6");
        assertEquals(1, misspelt.exitCode());
        assertTrue(misspelt.err().contains("a shape is given for 'ids', which is not an input of " + model
            + " (its inputs: none at run time; bound at compile time: input_ids)"), misspelt.err());

        CommandLineRun otherShape = CommandLineRun.of("run", model.toString(), "--test-data", set.toString(), "--shape", "input_ids=1x7");
        assertEquals(1, otherShape.exitCode());
        assertTrue(otherShape.oneLineError(), otherShape.err());
        assertTrue(otherShape.err().contains("the shape given for 'input_ids' (1x7) differs from that of the value bound to it at compile time (1x6)"),
            otherShape.err());
    }
}
