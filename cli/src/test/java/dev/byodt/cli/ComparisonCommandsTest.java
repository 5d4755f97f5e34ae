package dev.byodt.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.byodt.cli.report.ReportJson;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `byodt run --dtype` and `byodt sweep` wired end to end, on a few sample images each so the suite stays quick. */
class ComparisonCommandsTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models"), "lenet5-fashion.onnx");
    private static final Pattern TOP1 = Pattern.compile("top-1\\s+([0-9.]+)% \\((\\d+)/(\\d+)\\)");

    @TempDir
    Path tmp;

    @Test
    void runComparesADatatypeWithFloat32AndWritesJsonAndCsv() throws IOException {
        Path json = tmp.resolve("r.json"), csv = tmp.resolve("r.csv");
        CommandLineRun run = CommandLineRun.of("run", LENET.toString(), "--dtype", "fxp16_10", "--limit", "40",
            "--json", json.toString(), "--csv", csv.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("fxp16_10  dtype       nearest   saturate"), run.out());
        assertTrue(run.out().contains("reference  byodt float32"), run.out());
        JsonObject report = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
        assertEquals(ReportJson.FORMAT, report.get("format").getAsString());
        JsonObject output = report.getAsJsonArray("entries").get(0).getAsJsonObject().getAsJsonArray("outputs").get(0).getAsJsonObject();
        assertEquals(40, output.getAsJsonObject("top1").get("items").getAsInt());
        assertEquals(400, output.getAsJsonObject("errors").get("elements").getAsInt(), "10 logits per image");
        assertEquals(64, report.getAsJsonObject("setup").get("modelSha256").getAsString().length());
        List<String> lines = Files.readAllLines(csv);
        assertEquals(2, lines.size());
        assertTrue(lines.get(1).startsWith("0,fxp16_10,dtype,nearest,saturate,logits,40,40,"), lines.get(1));
    }

    @Test
    void float32AgainstOnnxRuntimePicksTheSameClassEverywhere() {
        CommandLineRun run = CommandLineRun.of("run", LENET.toString(), "--reference", "onnxruntime", "--limit", "30");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("reference  onnxruntime float32 (graph optimizations off)"), run.out());
        assertTrue(run.out().matches("(?s).*\\nfloat32 +dtype +- +- +[0-9.]+% +\\+0\\.00 +100\\.00% .*"), run.out());
    }

    @Test
    void aBatchWithAPartialLastCallCountsTheSameAsOneImagePerCall() {
        CommandLineRun single = CommandLineRun.of("run", LENET.toString(), "--limit", "37");
        CommandLineRun batched = CommandLineRun.of("run", LENET.toString(), "--limit", "37", "--batch", "16");
        assertEquals(0, batched.exitCode(), batched.err());
        Matcher a = TOP1.matcher(single.out()), b = TOP1.matcher(batched.out());
        assertTrue(a.find() && b.find(), single.out() + batched.out());
        assertEquals("37", b.group(3));
        assertEquals(a.group(2), b.group(2));
    }

    /** Three identical (black) images labelled 0, 1 and 2: no model gets more than one of them right. */
    private String[] threeIdenticalImages() throws IOException {
        Path data = NpyFiles.floats(tmp.resolve("x.npy"), new long[] {3, 1, 28, 28}, new float[3 * 28 * 28]);
        Path labels = NpyFiles.longs(tmp.resolve("y.npy"), 0, 1, 2);
        return new String[] {"--data", data.toString(), "--labels", labels.toString()};
    }

    @Test
    void anAccuracyGateViolationExitsOneWithOneLine() throws IOException {
        CommandLineRun run = CommandLineRun.of(concat(new String[] {"run", LENET.toString(), "--dtype", "bfloat16", "--min-accuracy", "50"},
            threeIdenticalImages()));
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains("accuracy gate failed: bfloat16") && run.err().contains("below --min-accuracy 50.00%"), run.err());
        assertTrue(run.out().contains("bfloat16"), "the table is still printed");
    }

    @Test
    void perLayerComparesEveryIntermediateInGraphOrderAndDrawsTheChart() throws IOException {
        Path chart = tmp.resolve("layers.png");
        CommandLineRun run = CommandLineRun.of("run", LENET.toString(), "--dtype", "fxp16_10", "--limit", "8", "--per-layer",
            "--chart", chart.toString());
        assertEquals(0, run.exitCode(), run.err());
        String table = run.out().substring(run.out().indexOf("per layer"));
        List<String> rows = table.lines().filter(l -> l.matches(" *\\d+ .*")).toList();
        assertEquals(11, rows.size(), "12 nodes, the last one the output:\n" + table);
        assertTrue(rows.get(0).matches(" *1 +\\S+ +37632 .*"), "first conv: 8 images x 6x28x28: " + rows.get(0));
        byte[] png = Files.readAllBytes(chart);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, java.util.Arrays.copyOf(png, 4));
    }

    @Test
    void npyDataWithLabels() throws IOException {
        CommandLineRun run = CommandLineRun.of(concat(new String[] {"run", LENET.toString(), "--dtype", "float16"}, threeIdenticalImages()));
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains(".npy " + tmp.resolve("x.npy") + " (3 items of 1x28x28"), run.out());
    }

    @Test
    void onnxTestDataAndImageFoldersAsData() throws IOException {
        Path set = Files.createDirectories(tmp.resolve("case/test_data_set_0"));
        TensorProtos.write(set.resolve("input_0.pb"), new NamedTensor("image", Tensor.zeros(ElementType.FLOAT32, new long[] {1, 1, 28, 28})));
        CommandLineRun testData = CommandLineRun.of("run", LENET.toString(), "--dtype", "bfloat16", "--data", tmp.resolve("case").toString());
        assertEquals(0, testData.exitCode(), testData.err());
        assertTrue(testData.out().contains("ONNX test data " + tmp.resolve("case") + " (1 data sets"), testData.out());

        Path classFolder = Files.createDirectories(tmp.resolve("images/7"));
        BufferedImage image = new BufferedImage(56, 56, BufferedImage.TYPE_BYTE_GRAY);
        ImageIO.write(image, "png", classFolder.resolve("a.png").toFile());
        CommandLineRun images = CommandLineRun.of("run", LENET.toString(), "--dtype", "bfloat16", "--data", tmp.resolve("images").toString(),
            "--mean", "0.5", "--std", "0.25");
        assertEquals(0, images.exitCode(), images.err());
        assertTrue(images.out().contains("images in class folders of " + tmp.resolve("images") + ", labels from folder numbers (1 images to 1x28x28"),
            images.out());
        assertTrue(images.out().contains("then mean [0.5], std [0.25]"), images.out());
    }

    @Test
    void sweepWritesEveryFileAndShardsMergeIntoTheWholeSweep() throws IOException {
        String[] sweep = {"sweep", LENET.toString(), "--dtypes", "fxp16_9..10", "--accumulate", "dtype,float32", "--limit", "12"};
        Path whole = tmp.resolve("whole"), one = tmp.resolve("one"), two = tmp.resolve("two"), merged = tmp.resolve("merged");
        CommandLineRun run = CommandLineRun.of(concat(sweep, "--out", whole.toString()));
        assertEquals(0, run.exitCode(), run.err());
        for (String file : List.of("results.json", "results.csv", "chart-fraction-bits.png", "chart-fraction-bits.svg", "report.html")) {
            assertTrue(Files.isRegularFile(whole.resolve(file)), file + " missing");
        }
        assertEquals(0, CommandLineRun.of(concat(sweep, "--out", one.toString(), "--shard", "1/2")).exitCode());
        assertEquals(0, CommandLineRun.of(concat(sweep, "--out", two.toString(), "--shard", "2/2")).exitCode());
        CommandLineRun merge = CommandLineRun.of("sweep", "merge", one.toString(), two.toString(), "--out", merged.toString());
        assertEquals(0, merge.exitCode(), merge.err());
        assertEquals(Files.readString(whole.resolve("results.csv")), Files.readString(merged.resolve("results.csv")));
        assertEquals(5, Files.readAllLines(merged.resolve("results.csv")).size(), "header and 4 configurations");
    }

    @Test
    void sweepCrossesEachDatatypeWithTheRoundingModesItTakesAndLeavesOutTheOthers() throws IOException {
        CommandLineRun run = CommandLineRun.of("sweep", LENET.toString(), "--dtypes", "fxp16_10,custom[fp8e4m3]8,custom[posit]32",
            "--rounding", "truncate,stochastic", "--limit", "12", "--out", tmp.resolve("roundings").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.err().contains("left out: datatype custom[fp8e4m3]8: --rounding truncate is not one of"), run.err());
        assertTrue(run.err().contains("left out: datatype custom[posit]32: --rounding stochastic takes formats of at most 16 bits"), run.err());
        List<String> rows = Files.readAllLines(tmp.resolve("roundings").resolve("results.csv"));
        List<String> configurations = rows.stream().skip(1).map(r -> String.join(",", List.of(r.split(",")).subList(1, 4))).toList();
        assertEquals(List.of("fxp16_10,dtype,truncate", "fxp16_10,dtype,stochastic", "custom[fp8e4m3]8,dtype,stochastic"),
            configurations);
    }

    @Test
    void sweepTakesTheBlockDatatypesModelsComputeIn() throws IOException {
        CommandLineRun run = CommandLineRun.of("sweep", LENET.toString(), "--dtypes", "mxint8,nvfp4", "--vector-dtype", "float32",
            "--limit", "12", "--out", tmp.resolve("blocks").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertEquals(3, Files.readAllLines(tmp.resolve("blocks").resolve("results.csv")).size(), "header and 2 configurations");
        CommandLineRun unsupported = CommandLineRun.of("sweep", LENET.toString(), "--dtypes", "mxfp4,block[custom[minifloat_e5]32,32,e8m0,floor]",
            "--out", tmp.resolve("even").toString());
        assertEquals(Main.USAGE_ERROR, unsupported.exitCode());
        assertTrue(unsupported.err().contains("block[custom[minifloat_e5]32,32,custom[e8m0]8,floor]: its element custom[minifloat_e5]32 has values neither"), unsupported.err());
    }

    @Test
    void sweepGateAppliesOnlyToTheGatedDatatypes() throws IOException {
        CommandLineRun run = CommandLineRun.of(concat(new String[] {"sweep", LENET.toString(), "--dtypes", "fxp16_10,fxp8_2",
            "--out", tmp.resolve("gated").toString(), "--gate", "fxp16_10", "--min-accuracy", "50"}, threeIdenticalImages()));
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.err().contains("accuracy gate failed for 1 configuration: fxp16_10"), run.err());
        assertFalse(run.err().contains("fxp8_2 (accumulate"), run.err());
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
