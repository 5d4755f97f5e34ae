package dev.byodt.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.byodt.cli.compare.OnnxRuntimeInference;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import dev.byodt.runtime.data.NpyArray;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * PyTorch's own exports of each family issue 13 names (scripts/export_model_families.py: torchvision ViT,
 * nn.TransformerEncoder with a padding mask, a GPT-style decoder whose causal mask the graph builds, LSTM, GRU,
 * U-Net, tiny-YOLO head, fake-quantized CNN), run as a user runs them: byodt's float32 gives PyTorch's outputs and
 * ONNX Runtime's (graph optimizations off, as --reference onnxruntime runs it) to 1e-4 of each output's largest
 * magnitude, and `byodt run` in posit16, bfloat16 and a 16-bit fixed point prints the comparison table with
 * finite figures, no NaN, and most top-1 choices kept (by default each family in one of the three, in turn;
 * -Pexhaustive the other two).
 */
class ModelFamiliesTest {
    private static final Path SCRIPT = Path.of("..", "scripts", "export_model_families.py");
    private static final int ITEMS = 4;
    private static final Pattern MISSING_MODULE = Pattern.compile("No module named '([A-Za-z0-9_]+)'");
    /** The 16-bit datatypes every family runs in, beside the fixed point that suits it. */
    private static final List<String> FLOATING_DATATYPES = List.of("custom[posit]16", "bfloat16");

    @TempDir
    static Path exports;

    /**
     * Each family, the fixed point that suits its range (fxp16_13 holds [-4, 4) at 2^-13; attention scores and
     * a detector's pixel coordinates need the integer bits of fxp16_8 and fxp16_5, while the ViT's LayerNorm of
     * small patch embeddings needs the fraction bits of fxp16_10), and the options `run` needs: the decoder's
     * symbolic sequence length, the U-Net's classes on axis 1.
     */
    static Stream<Arguments> families() {
        return Stream.of(
            Arguments.of("vit", "fxp16_10", List.of()),
            Arguments.of("encoder", "fxp16_8", List.of()),
            Arguments.of("decoder", "fxp16_8", List.of("--shape", "input_ids=1,16")),
            Arguments.of("lstm", "fxp16_13", List.of()),
            Arguments.of("gru", "fxp16_13", List.of()),
            Arguments.of("unet", "fxp16_13", List.of("--class-axis", "1")),
            Arguments.of("yolo", "fxp16_5", List.of()),
            Arguments.of("qdq", "fxp16_8", List.of()));
    }

    static Stream<String> names() {
        return families().map(family -> (String) family.get()[0]);
    }

    /**
     * Each family in one of its three 16-bit datatypes, taken in turn (posit16, bfloat16, its fixed point,
     * posit16, ...), so that every family and every datatype is run by default; {@link #everyOtherPairing}
     * (-Pexhaustive) runs the rest.
     */
    static Stream<Arguments> oneDatatypeEach() {
        return pairings(true);
    }

    static Stream<Arguments> otherDatatypes() {
        return pairings(false);
    }

    /** The family and datatype pairs taken in turn ({@code taken}), or the others. */
    private static Stream<Arguments> pairings(boolean taken) {
        List<Arguments> pairs = new ArrayList<>();
        List<Arguments> all = families().toList();
        for (int f = 0; f < all.size(); f++) {
            Object[] family = all.get(f).get();
            List<String> datatypes = new ArrayList<>(FLOATING_DATATYPES);
            datatypes.add((String) family[1]);
            for (int d = 0; d < datatypes.size(); d++) {
                boolean inTurn = d == f % datatypes.size();
                if (inTurn == taken) pairs.add(Arguments.of(family[0], datatypes.get(d), family[2]));
            }
        }
        return pairs.stream();
    }

    @BeforeAll
    static void exportWithPyTorch() throws IOException, InterruptedException {
        Process python = new ProcessBuilder("/usr/bin/python3", SCRIPT.toString(), exports.toString(), "--items", String.valueOf(ITEMS))
            .redirectErrorStream(true).start();
        String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(python.waitFor(120, TimeUnit.SECONDS), "the export script did not finish in 2 minutes");
        Matcher missing = MISSING_MODULE.matcher(output);
        if (missing.find()) {
            String pkg = "python3-" + missing.group(1);
            fail(missing.group(1) + " not found: install Debian's " + pkg + " (apt-get install " + pkg + ")");
        }
        assertEquals(0, python.exitValue(), output);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void float32MatchesPyTorchAndOnnxRuntime(String family) {
        Path model = exports.resolve(family + ".onnx");
        NpyArray inputs = NpyArray.read(exports.resolve(family + "-input.npy"));
        NpyArray expected = NpyArray.read(exports.resolve(family + "-expected.npy"));
        // The decoder's sequence length is symbolic: fixed here to the items' own, as `run --shape` fixes it.
        Graph graph = OnnxLoader.load(model, Map.of(OnnxLoader.load(model).inputs().getFirst().name(), itemShape(inputs)));
        Value input = graph.inputs().getFirst(), output = graph.outputs().getFirst();
        TensorSpec inputSpec = new TensorSpec(input.name(), input.type().elementType(), input.type().shape());
        TensorSpec outputSpec = new TensorSpec(output.name(), ElementType.FLOAT32, output.type().shape());
        double worstAgainstPyTorch = 0, worstAgainstOnnxRuntime = 0;
        try (CompiledModule module = Compiler.compile(graph, CompileOptions.host());
             HostModel byodt = Compiler.jit(module);
             OnnxRuntimeInference onnxRuntime = OnnxRuntimeInference.open(model, inputSpec, List.of(outputSpec))) {
            int perItem = perItem(expected);
            for (int item = 0; item < ITEMS; item++) {
                float[] ours = byodt.run(List.of(tensor(inputs, item))).getFirst().toFloatArray();
                float[] pytorch = floats(expected, item, perItem);
                float[] theirs = onnxRuntime.run(floats(inputs, item, perItem(inputs)), item)[0];
                worstAgainstPyTorch = Math.max(worstAgainstPyTorch, relativeError(ours, pytorch));
                worstAgainstOnnxRuntime = Math.max(worstAgainstOnnxRuntime, relativeError(ours, theirs));
            }
        }
        System.out.printf("%s float32: worst |byodt - PyTorch| %.3g, |byodt - onnxruntime| %.3g of the largest output%n",
            family, worstAgainstPyTorch, worstAgainstOnnxRuntime);
        assertTrue(worstAgainstPyTorch <= 1e-4, family + ": byodt differs from PyTorch by " + worstAgainstPyTorch + " of the largest output");
        assertTrue(worstAgainstOnnxRuntime <= 1e-4, family + ": byodt differs from ONNX Runtime by " + worstAgainstOnnxRuntime);
    }

    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource("oneDatatypeEach")
    void runsInASixteenBitDatatypeWithTheComparisonTable(String family, String datatype, List<String> options) throws IOException {
        runWithTheComparisonTable(family, datatype, options);
    }

    @Tag("exhaustive")
    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource("otherDatatypes")
    void everyOtherPairing(String family, String datatype, List<String> options) throws IOException {
        runWithTheComparisonTable(family, datatype, options);
    }

    private static void runWithTheComparisonTable(String family, String datatype, List<String> options) throws IOException {
        Path json = exports.resolve(family + "-" + datatype + ".json");
        List<String> args = new ArrayList<>(List.of("run", exports.resolve(family + ".onnx").toString(),
            "--data", exports.resolve(family + "-input.npy").toString(), "--dtype", datatype,
            "--reference", "onnxruntime", "--json", json.toString()));
        args.addAll(options);
        CommandLineRun run = CommandLineRun.of(args.toArray(String[]::new));
        assertEquals(0, run.exitCode(), family + " in " + datatype + ": " + run.err());
        assertTrue(run.out().contains("SQNR dB") && run.out().lines().anyMatch(line -> line.startsWith(datatype + " ")),
            family + " in " + datatype + " printed no comparison table:\n" + run.out());
        JsonObject figures = JsonParser.parseString(Files.readString(json)).getAsJsonObject().getAsJsonArray("entries")
            .get(0).getAsJsonObject().getAsJsonArray("outputs").get(0).getAsJsonObject();
        JsonObject errors = figures.getAsJsonObject("errors");
        double agreement = figures.getAsJsonObject("top1").get("agreement").getAsDouble();
        double sqnr = errors.get("sqnrDb").getAsDouble();
        System.out.printf("%s %s: top-1 agreement %.2f%%, SQNR %.1f dB, max abs error %.3g%n", family, datatype,
            100 * agreement, sqnr, errors.get("maxAbsError").getAsDouble());
        assertEquals(0, errors.get("nan").getAsInt(), family + " in " + datatype + " gives NaN (NaR) outputs");
        assertTrue(Double.isFinite(sqnr) && sqnr > 0, family + " in " + datatype + ": SQNR " + sqnr + " dB");
        assertTrue(agreement >= 0.5, family + " in " + datatype + ": top-1 agreement " + agreement);
    }

    private static long[] itemShape(NpyArray items) {
        long[] shape = items.shape();
        shape[0] = 1;
        return shape;
    }

    /** The elements of one item: the product of every dimension but the first. */
    private static int perItem(NpyArray items) {
        return Math.toIntExact(Arrays.stream(items.shape()).skip(1).reduce(1, Math::multiplyExact));
    }

    private static Tensor tensor(NpyArray items, int item) {
        long[] shape = itemShape(items);
        int count = perItem(items);
        if (!items.kind().isInteger()) return Tensor.ofFloats(shape, floats(items, item, count));
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) ids[i] = items.getLong((long) item * count + i);
        return Tensor.ofLongs(shape, ids);
    }

    private static float[] floats(NpyArray items, int item, int count) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) values[i] = (float) items.get((long) item * count + i);
        return values;
    }

    /** max |ours - reference| over the largest |reference|. */
    private static double relativeError(float[] ours, float[] reference) {
        assertEquals(reference.length, ours.length);
        double largest = 0, worst = 0;
        for (float r : reference) largest = Math.max(largest, Math.abs(r));
        for (int i = 0; i < ours.length; i++) worst = Math.max(worst, Math.abs(ours[i] - reference[i]));
        return worst / largest;
    }
}
