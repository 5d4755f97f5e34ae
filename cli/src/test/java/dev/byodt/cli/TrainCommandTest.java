package dev.byodt.cli;

import com.google.protobuf.ByteString;
import dev.byodt.onnx.Onnx;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.byodt.cli.OnnxModels.FLOAT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * byodt train end to end on LeNet-5 from its untrained export: the files it writes, the same bits from the
 * same seed, and a written model that byodt run scores as the history recorded.
 */
class TrainCommandTest {
    private static final String UNTRAINED = "../models/lenet5-fashion-untrained.onnx";

    @TempDir
    Path temp;

    private static CommandLineRun train(Path out, int seed) {
        return CommandLineRun.of("train", UNTRAINED, "--limit", "96", "--test-limit", "50", "--batch", "32", "--epochs", "2",
            "--optimizer", "momentum", "--lr", "0.05", "--shuffle", "--seed", String.valueOf(seed), "--out", out.toString());
    }

    @Test
    void trainsWritesEveryFileAndTheModelScoresAsRecorded() throws IOException {
        Path out = temp.resolve("first");
        CommandLineRun run = train(out, 5);
        assertEquals(0, run.exitCode(), run.err());
        for (String file : List.of("model.onnx", "history.csv", "history.json", "loss.png", "loss.svg", "accuracy.png", "accuracy.svg")) {
            assertTrue(Files.isRegularFile(out.resolve(file)), file);
        }
        List<String> rows = Files.readAllLines(out.resolve("history.csv"));
        assertEquals(3, rows.size(), rows.toString());
        assertTrue(run.out().contains("epoch 2/2  loss "), run.out());
        assertTrue(run.out().matches("(?s).*epoch 2/2 .*\\n +gradients [0-9]+ zero, 0 saturated; updates [0-9]+ vanished, 0 saturated \\(61706 weights x 3 steps\\)\\n.*"), run.out());
        assertTrue(rows.get(0).endsWith(",zero_gradients,saturated_gradients,vanished_updates,saturated_updates,multiply_add"), rows.get(0));
        assertTrue(rows.get(2).endsWith(",separate"), rows.get(2));
        assertTrue(Files.readString(out.resolve("history.json")).contains("\"multiply_add\": \"separate\""), "history.json records --multiply-add");
        double recorded = Double.parseDouble(rows.get(2).split(",")[3]);

        CommandLineRun scored = CommandLineRun.of("run", out.resolve("model.onnx").toString(), "--data", "fashion-mnist", "--limit", "50");
        assertEquals(0, scored.exitCode(), scored.err());
        Matcher top1 = Pattern.compile("top-1\\s+([0-9.]+)%").matcher(scored.out());
        assertTrue(top1.find(), scored.out());
        assertEquals(String.format(Locale.ROOT, "%.2f", recorded), top1.group(1));

        Path again = temp.resolve("again");
        assertEquals(0, train(again, 5).exitCode());
        assertArrayEquals(Files.readAllBytes(out.resolve("model.onnx")), Files.readAllBytes(again.resolve("model.onnx")),
            "the same seed trains the same bits");
        Path otherSeed = temp.resolve("other");
        assertEquals(0, train(otherSeed, 6).exitCode());
        assertFalse(Arrays.equals(Files.readAllBytes(out.resolve("model.onnx")),
            Files.readAllBytes(otherSeed.resolve("model.onnx"))), "another seed visits the items in another order");
    }

    @Test
    void aDynamicLossScaleReportsItsScaleAndSkippedStepsEachEpoch() {
        CommandLineRun run = CommandLineRun.of("train", UNTRAINED, "--dtype", "float16", "--loss-scale", "dynamic",
            "--limit", "128", "--test-limit", "32", "--batch", "32", "--out", temp.resolve("scaled").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("loss scale dynamic, from 65536"), run.out());
        assertTrue(run.out().matches("(?s).*epoch 1/1 .*\\n +loss scale 2\\^[0-9]+, [0-4] of 4 steps skipped \\(overflow\\).*"), run.out());
    }

    @Test
    void masterWeightsAreFloat32() {
        CommandLineRun run = CommandLineRun.of("train", UNTRAINED, "--dtype", "bfloat16", "--master-weights", "float32",
            "--limit", "64", "--test-limit", "32", "--out", temp.resolve("master").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("master     float32 weights and optimizer state"), run.out());
        CommandLineRun other = CommandLineRun.of("train", UNTRAINED, "--master-weights", "float16", "--out", temp.resolve("y").toString());
        assertEquals(Main.USAGE_ERROR, other.exitCode(), other.out());
        assertTrue(other.err().contains("--master-weights float16: only float32 is available"), other.err());
    }

    /**
     * Stochastic rounding trains with float32 master weights (whose rounding into bfloat16 as the step loads them is
     * then stochastic, with each step's own bits) and dynamic loss scaling.
     */
    @Test
    void stochasticRoundingTrainsWithMasterWeightsAndLossScaling() {
        CommandLineRun run = CommandLineRun.of("train", UNTRAINED, "--dtype", "bfloat16", "--rounding", "stochastic",
            "--sr-bits", "8", "--seed", "3", "--master-weights", "float32", "--loss-scale", "dynamic",
            "--limit", "64", "--test-limit", "32", "--out", temp.resolve("sr").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("dtype      bfloat16, rounding stochastic, sr-bits 8, seed 3"), run.out());
        assertTrue(run.out().matches("(?s).*epoch 1/1  loss [0-9.]+ .*\\n +loss scale 2\\^[0-9]+, [0-2] of 2 steps skipped \\(overflow\\).*"), run.out());
    }

    @Test
    void aDtypeMapTrainsTheMappedNodesInTheirDatatype() {
        CommandLineRun run = CommandLineRun.of("train", UNTRAINED, "--dtype-map", "/conv1/*=custom[posit]16",
            "--limit", "64", "--test-limit", "32", "--out", temp.resolve("mapped").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("dtype-map /conv1/*=custom[posit]16"), run.out());
        assertTrue(run.out().contains("epoch 1/1  loss "), run.out());
    }

    @Test
    void trainsOnNpyItemsAndTestsOnTheTestData() throws IOException {
        int n = 64;
        float[] pixels = new float[n * 28 * 28];
        long[] labels = new long[n];
        java.util.Random random = new java.util.Random(3);
        for (int i = 0; i < pixels.length; i++) pixels[i] = random.nextFloat();
        for (int i = 0; i < n; i++) labels[i] = i % 10;
        Path images = NpyFiles.floats(temp.resolve("x.npy"), new long[]{n, 1, 28, 28}, pixels);
        Path labelFile = NpyFiles.longs(temp.resolve("y.npy"), labels);
        CommandLineRun run = CommandLineRun.of("train", UNTRAINED, "--data", images.toString(), "--labels", labelFile.toString(),
            "--test-data", images.toString(), "--test-labels", labelFile.toString(), "--out", temp.resolve("npy").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("epoch 1/1  loss "), run.out());
        assertTrue(run.out().contains("data       .npy"), run.out());

        CommandLineRun untested = CommandLineRun.of("train", UNTRAINED, "--data", images.toString(), "--labels", labelFile.toString(),
            "--out", temp.resolve("untested").toString());
        assertEquals(1, untested.exitCode(), untested.out());
        assertTrue(untested.oneLineError(), untested.err());
        assertTrue(untested.err().contains("give the items to test on with --test-data"), untested.err());

        labels[5] = 10;
        NpyFiles.longs(labelFile, labels);
        CommandLineRun outside = CommandLineRun.of("train", UNTRAINED, "--data", images.toString(), "--labels", labelFile.toString(),
            "--test-data", images.toString(), "--test-labels", labelFile.toString(), "--out", temp.resolve("outside").toString());
        assertEquals(1, outside.exitCode(), outside.out());
        assertTrue(outside.err().contains("item 5 has label 10, outside the model's 10 classes"), outside.err());
    }

    @Test
    void aLossScaleIsANumberOrDynamic() {
        assertOneLineUsageError("--loss-scale huge: give a number (such as 1024) or dynamic", "--loss-scale", "huge");
    }

    @Test
    void blockDatatypesAreForInferenceOnly() {
        assertOneLineUsageError("train: block datatypes (mxfp4) compute inference only for now", "--dtype-map", "fc*=mxfp4");
    }

    private void assertOneLineUsageError(String expected, String option, String value) {
        CommandLineRun run = CommandLineRun.of("train", UNTRAINED, option, value, "--out", temp.resolve("x").toString());
        assertEquals(Main.USAGE_ERROR, run.exitCode(), run.out());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains(expected), run.err());
    }

    @Test
    void operatorsWithoutGradientsAreListedInOneLine() throws IOException {
        Path model = OnnxModels.graph().input("x", FLOAT, 32, 1, 28, 28).floats("w", 0.01f, 784, 10)
            .longs("shape", -1, 784)
            .node(OnnxModels.node("Reshape", "flat", new String[]{"x", "shape"}, "f"))
            .node(OnnxModels.node("MatMul", "fc", new String[]{"f", "w"}, "z"))
            .node(OnnxModels.node("Exp", "e", new String[]{"z"}, "ez"))
            .node(OnnxModels.node("Abs", "a", new String[]{"ez"}, "y"))
            .output("y", FLOAT, 32, 10).write(temp.resolve("nograd.onnx"));
        CommandLineRun run = CommandLineRun.of("train", model.toString(), "--limit", "32", "--test-limit", "32",
            "--out", temp.resolve("out").toString());
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains("no gradient for 2 nodes: Exp node 'e', Abs node 'a'"), run.err());
    }

    @Test
    void batchNormalizationAndDropoutTrainAndTheWrittenModelInfersWithTheRunningStatistics() throws IOException {
        Path model = batchNormalizationDropoutMlp(false);
        Path out = temp.resolve("bn");
        assertTrainsAndScoresAsRecorded(model, out);

        Path again = temp.resolve("bn-again"), otherSeed = temp.resolve("bn-other");
        assertEquals(0, trainMlp(model, again, "5", "32").exitCode());
        assertArrayEquals(Files.readAllBytes(out.resolve("model.onnx")), Files.readAllBytes(again.resolve("model.onnx")),
            "the same seed draws the same Dropout masks");
        assertEquals(0, trainMlp(model, otherSeed, "6", "32").exitCode());
        assertFalse(Arrays.equals(Files.readAllBytes(out.resolve("model.onnx")), Files.readAllBytes(otherSeed.resolve("model.onnx"))),
            "another seed draws other masks (the items are in file order)");
    }

    @Test
    void runningStatisticsTiedToTheScaleAndBiasAsPyTorchExportsAFreshBatchNormAreWrittenAsTheirOwn() throws IOException {
        Path out = temp.resolve("tied");
        assertTrainsAndScoresAsRecorded(batchNormalizationDropoutMlp(true), out);
        Onnx.GraphProto written = Onnx.ModelProto.parseFrom(Files.readAllBytes(out.resolve("model.onnx"))).getGraph();
        assertTrue(written.getNodeList().stream().noneMatch(n -> n.getOpType().equals("Identity")), written.getNodeList().toString());
        Onnx.TensorProto variance = written.getInitializerList().stream().filter(t -> t.getName().equals("var")).findFirst().orElseThrow();
        Onnx.TensorProto scale = written.getInitializerList().stream().filter(t -> t.getName().equals("scale")).findFirst().orElseThrow();
        assertFalse(variance.getRawData().equals(scale.getRawData()), "the variance and the scale part");
    }

    /** Trains {@code model} into {@code out}: byodt run scores the written model as recorded, and the running mean moved. */
    private void assertTrainsAndScoresAsRecorded(Path model, Path out) throws IOException {
        CommandLineRun run = trainMlp(model, out, "5", "32");
        assertEquals(0, run.exitCode(), run.err());
        List<String> rows = Files.readAllLines(out.resolve("history.csv"));
        double recorded = Double.parseDouble(rows.get(2).split(",")[3]);
        CommandLineRun scored = CommandLineRun.of("run", out.resolve("model.onnx").toString(), "--data", "fashion-mnist", "--limit", "50");
        assertEquals(0, scored.exitCode(), scored.err());
        Matcher top1 = Pattern.compile("top-1\\s+([0-9.]+)%").matcher(scored.out());
        assertTrue(top1.find(), scored.out());
        assertEquals(String.format(Locale.ROOT, "%.2f", recorded), top1.group(1), "inference normalizes by the running statistics");
        Onnx.GraphProto written = Onnx.ModelProto.parseFrom(Files.readAllBytes(out.resolve("model.onnx"))).getGraph();
        Onnx.TensorProto mean = written.getInitializerList().stream().filter(t -> t.getName().equals("mean")).findFirst().orElseThrow();
        assertFalse(mean.getRawData().equals(ByteString.copyFrom(new byte[16 * Float.BYTES])), "the running mean moved");
    }

    @Test
    void batchNormalizationOfOneValuePerChannelIsAOneLineError() throws IOException {
        CommandLineRun run = trainMlp(batchNormalizationDropoutMlp(false), temp.resolve("one"), "5", "1");
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains("BatchNormalization node 'bn': training needs more than one value per channel to take "
            + "a variance from; the batch has 1"), run.err());
    }

    private CommandLineRun trainMlp(Path model, Path out, String seed, String batch) {
        return CommandLineRun.of("train", model.toString(), "--limit", "96", "--test-limit", "50", "--batch", batch,
            "--epochs", "2", "--seed", seed, "--out", out.toString());
    }

    /**
     * A classifier with BatchNormalization over 16 features and Dropout (ratio 0.5) between its two MatMuls; with
     * {@code tied}, the running mean and variance are Identity copies of the equal bias and scale, as PyTorch's
     * exporter writes a fresh BatchNorm.
     */
    private Path batchNormalizationDropoutMlp(boolean tied) throws IOException {
        OnnxModels graph = OnnxModels.graph().symbolicInput("x", FLOAT, "N", 1L, 28L, 28L).longs("shape", -1, 784)
            .floats("w1", 0.01f, 784, 16).floats("scale", 1, 16).floats("bias", 0, 16).floats("w2", 0.1f, 16, 10);
        if (tied) {
            graph.node(OnnxModels.node("Identity", "tie_mean", new String[]{"bias"}, "mean"))
                .node(OnnxModels.node("Identity", "tie_var", new String[]{"scale"}, "var"));
        } else {
            graph.floats("mean", 0, 16).floats("var", 1, 16);
        }
        return graph
            .node(OnnxModels.node("Reshape", "flat", new String[]{"x", "shape"}, "f"))
            .node(OnnxModels.node("MatMul", "fc1", new String[]{"f", "w1"}, "h"))
            .node(OnnxModels.node("BatchNormalization", "bn", new String[]{"h", "scale", "bias", "mean", "var"}, "n"))
            .node(OnnxModels.node("Relu", "relu", new String[]{"n"}, "r"))
            .node(OnnxModels.node("Dropout", "dropout", new String[]{"r"}, "d"))
            .node(OnnxModels.node("MatMul", "fc2", new String[]{"d", "w2"}, "y"))
            .output("y").write(temp.resolve("bn-dropout.onnx"));
    }
}
