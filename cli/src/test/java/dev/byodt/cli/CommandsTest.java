package dev.byodt.cli;

import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.LabeledImages;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The commands as a user runs them, on the shipped LeNet-5 and on ONNX node cases. */
class CommandsTest {
    private static final Path MODELS = Path.of(System.getProperty("byodt.modelsDir", "../models"));
    private static final Path LENET = MODELS.resolve("lenet5-fashion.onnx");
    private static final Path NODE_CASES = Path.of(System.getProperty("byodt.onnxNodeDir", "../../shared/onnx-node"));

    @TempDir
    Path tmp;

    /** --verbose names each stage of a compile with its time; without it the stages are silent. */
    @Test
    void verboseCompileTimesEachStage() {
        Path object = tmp.resolve("lenet5.o");
        CommandLineRun run = CommandLineRun.of("compile", LENET.toString(), "--dtype", "custom[posit]8", "-o", object.toString(), "--verbose");
        assertEquals(0, run.exitCode(), run.err());
        for (String stage : List.of("loading the model", "lowering the graph to loop nests", "lowering the datatypes", "generating LLVM IR",
            "optimizing the module (O3)", "writing " + object)) {
            assertTrue(run.err().lines().anyMatch(line -> line.matches("byodt: +[0-9.]+ s \\([0-9.]+ s of this thread's CPU\\)  " + Pattern.quote(stage))),
                stage + " in:\n" + run.err());
        }
        CommandLineRun quiet = CommandLineRun.of("compile", LENET.toString(), "-o", tmp.resolve("quiet.o").toString());
        assertEquals(0, quiet.exitCode(), quiet.err());
        assertFalse(quiet.err().contains("of this thread's CPU"), quiet.err());
    }

    @Test
    void executableComputesWhatTheJitComputes() throws Exception {
        Path input = firstSampleImage();
        Path exe = tmp.resolve("lenet5");
        assertEquals(0, CommandLineRun.of("compile", LENET.toString(), "--emit", "exe", "-o", exe.toString()).exitCode());

        Path exeOut = Files.createDirectory(tmp.resolve("exe-out"));
        Process p = new ProcessBuilder(exe.toString(), "-o", exeOut.toString(), input.toString()).inheritIO().start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());

        Path jitOut = tmp.resolve("jit-out");
        CommandLineRun run = CommandLineRun.of("run", LENET.toString(), "--input", "image=" + input, "--output", jitOut.toString());
        assertEquals(0, run.exitCode(), run.err());

        NamedTensor fromExe = TensorProtos.read(exeOut.resolve("output_0.pb"));
        NamedTensor fromJit = TensorProtos.read(jitOut.resolve("output_0.pb"));
        assertEquals("logits", fromExe.name());
        assertArrayEquals(fromJit.tensor().shape(), fromExe.tensor().shape());
        assertArrayEquals(fromJit.tensor().toFloatArray(), fromExe.tensor().toFloatArray(), "AOT and JIT code differ");
    }

    @Test
    void unoptimizedIrShowsTheKernels() throws IOException {
        Path ll = tmp.resolve("lenet5.ll");
        assertEquals(0, CommandLineRun.of("compile", LENET.toString(), "--emit", "llvm", "--no-opt", "-o", ll.toString()).exitCode());
        String ir = Files.readString(ll);
        assertTrue(ir.contains("define void @byodt_model("), "no entry point");
        assertTrue(ir.contains("call float @float32_tanh("), "tanh should be a library call before optimization");
    }

    @Test
    void sharedLibraryComesWithItsHeader() throws IOException {
        Path so = tmp.resolve("liblenet5.so");
        CommandLineRun run = CommandLineRun.of("compile", LENET.toString(), "--emit", "so", "-o", so.toString(), "--entry", "lenet5");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(Files.size(so) > 0);
        String header = Files.readString(tmp.resolve("liblenet5.h"));
        assertTrue(header.contains("void lenet5("), header);
        assertTrue(header.contains("const float *image"), header);
    }

    @Test
    void inspectListsOperatorsAndParameters() {
        CommandLineRun run = CommandLineRun.of("inspect", LENET.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("61,706"), run.out());
        assertTrue(run.out().matches("(?s).*Conv\\s+3.*"), run.out());
        assertTrue(run.out().contains("every operator, weight and input is supported"), run.out());
    }

    /** What stands behind an unsupported operator is listed too: a Cast to a type byodt lacks, a tensor declared of one. */
    @Test
    void inspectListsProblemsBehindAnUnsupportedNode() throws IOException {
        Path model = OnnxModels.graph()
            .input("x", OnnxModels.FLOAT, 4)
            .output("y", OnnxModels.FLOAT, 4)
            .declared("text", OnnxModels.STRING, 4)
            .node(OnnxModels.node("Mystery", "mystery", new String[] {"x"}, "m").setDomain("com.example"))
            .node(OnnxModels.node("Cast", "to_text", new String[] {"m"}, "text").addAttribute(OnnxModels.integer("to", OnnxModels.STRING)))
            .node(OnnxModels.node("Cast", "back", new String[] {"text"}, "y").addAttribute(OnnxModels.integer("to", OnnxModels.FLOAT)))
            .write(tmp.resolve("behind.onnx"));
        CommandLineRun run = CommandLineRun.of("inspect", model.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().matches("(?s).*\n  com\\.example\\.Mystery +node 'mystery' +unsupported domain\n.*"), run.out());
        assertTrue(run.out().matches("(?s).*\n  Cast +node 'to_text' +unsupported attribute or input: Cast node 'to_text': "
            + "casting to string is not supported.*"), run.out());
        assertTrue(run.out().matches("(?s).*\n  - +tensor 'text' +unsupported tensor type: Cast node 'to_text': "
            + "output 'text' is declared string, which byodt does not support\n.*"), run.out());
    }

    @Test
    void conformancePrintsTheTally() throws IOException {
        Path cases = Files.createDirectory(tmp.resolve("cases"));
        copyCase("test_relu", cases);
        copyCase("test_cast_FLOAT_to_FLOAT8E4M3FN", cases);
        copyCase("test_identity_sequence", cases);
        CommandLineRun run = CommandLineRun.of("conformance", cases.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("2 passed, 1 unsupported, 0 failed (3 cases)"), run.out());
        assertTrue(run.out().contains("is a sequence"), run.out());
        CommandLineRun fused = CommandLineRun.of("conformance", cases.toString(), "--multiply-add", "fused");
        assertEquals(0, fused.exitCode(), fused.err());
        assertTrue(fused.out().contains("2 passed, 1 unsupported, 0 failed (3 cases), multiply-add fused"), fused.out());
    }

    @Test
    void testDataBeyondToleranceExitsWithOne() throws IOException {
        Path set = Files.createDirectory(tmp.resolve("test_data_set_0"));
        Path source = NODE_CASES.resolve("test_relu/test_data_set_0");
        Files.copy(source.resolve("input_0.pb"), set.resolve("input_0.pb"));
        NamedTensor expected = TensorProtos.read(source.resolve("output_0.pb"));
        Tensor wrong = Tensor.zeros(ElementType.FLOAT32, expected.tensor().shape());
        MemorySegment.copy(expected.tensor().data(), 0, wrong.data(), 0, wrong.data().byteSize());
        wrong.setFloat(0, wrong.getFloat(0) + 1);
        TensorProtos.write(set.resolve("output_0.pb"), new NamedTensor(expected.name(), wrong));

        Path model = NODE_CASES.resolve("test_relu/model.onnx").toAbsolutePath();
        CommandLineRun run = CommandLineRun.of("run", model.toString(), "--test-data", set.toString());
        assertEquals(1, run.exitCode(), run.out());
        assertTrue(run.out().contains("max abs error 1.00"), run.out());
        Files.copy(source.resolve("output_0.pb"), set.resolve("output_0.pb"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertEquals(0, CommandLineRun.of("run", model.toString(), "--test-data", set.toString()).exitCode());
    }

    @Test
    void singleRunsReadAndWriteTheDeclaredTypes() {
        Path source = NODE_CASES.resolve("test_cast_FLOAT16_to_DOUBLE");
        Path out = tmp.resolve("out");
        CommandLineRun run = CommandLineRun.of("run", source.resolve("model.onnx").toString(),
            "--input", source.resolve("test_data_set_0/input_0.pb").toString(), "--output", out.toString());
        assertEquals(0, run.exitCode(), run.err());
        Tensor expected = TensorProtos.read(source.resolve("test_data_set_0/output_0.pb")).tensor();
        Tensor written = TensorProtos.read(out.resolve("output_0.pb")).tensor();
        assertEquals(ElementType.DOUBLE, written.type());
        assertEquals(ElementType.DOUBLE, expected.type());
        for (long i = 0; i < expected.elementCount(); i++) assertEquals(expected.getDouble(i), written.getDouble(i), 0, "element " + i);
    }

    @Test
    void everyOptionOfEveryCommandIsExplained() {
        CommandLine cli = new CommandLine(new Main());
        for (CommandLine sub : cli.getSubcommands().values()) {
            CommandSpec spec = sub.getCommandSpec();
            assertTrue(spec.usageMessage().description().length > 0, spec.name() + " has no description");
            for (OptionSpec option : spec.options()) {
                assertTrue(option.description().length > 0 && !option.description()[0].isBlank(),
                    spec.name() + " " + option.longestName() + " has no description");
            }
            CommandLineRun help = CommandLineRun.of(spec.name(), "--help");
            assertEquals(0, help.exitCode());
            assertFalse(help.out().isBlank());
        }
    }

    private Path firstSampleImage() {
        LabeledImages one = IdxReader.readTestSet(MODELS.resolve("fashion-mnist-sample"), 1);
        Path input = tmp.resolve("input_0.pb");
        TensorProtos.write(input, new NamedTensor("image", one.images()));
        return input;
    }

    private static void copyCase(String name, Path into) throws IOException {
        Path from = NODE_CASES.resolve(name);
        Path to = Files.createDirectories(into.resolve(name).resolve("test_data_set_0"));
        Files.copy(from.resolve("model.onnx"), into.resolve(name).resolve("model.onnx"));
        try (var files = Files.list(from.resolve("test_data_set_0"))) {
            for (Path f : files.toList()) Files.copy(f, to.resolve(f.getFileName()));
        }
    }
}
