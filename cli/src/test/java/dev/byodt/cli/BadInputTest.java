package dev.byodt.cli;

import com.google.protobuf.ByteString;
import dev.byodt.onnx.Onnx;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every kind of bad input gets one line naming the problem and the right exit code, never a crash. */
class BadInputTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models"), "lenet5-fashion.onnx");

    @TempDir
    Path tmp;

    private static void assertModelError(CommandLineRun run, String... mentions) {
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.oneLineError(), "expected one line, got:\n" + run.err());
        for (String m : mentions) assertTrue(run.err().contains(m), "'" + m + "' not in: " + run.err());
    }

    private static void assertUsageError(CommandLineRun run, String mention) {
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(run.err().contains(mention), "'" + mention + "' not in: " + run.err());
        assertFalse(run.err().contains("\tat "), "stack trace printed:\n" + run.err());
    }

    @Test
    void missingModelFile() {
        assertModelError(CommandLineRun.of("inspect", tmp.resolve("absent.onnx").toString()), "absent.onnx");
        assertModelError(CommandLineRun.of("run", tmp.resolve("absent.onnx").toString()), "absent.onnx");
    }

    @Test
    void fileThatIsNotOnnx() throws IOException {
        Path text = Files.writeString(tmp.resolve("notes.onnx"), "this is not a model\n");
        assertModelError(CommandLineRun.of("compile", text.toString(), "-o", tmp.resolve("x.o").toString()), "notes.onnx");
        assertNoFile(tmp.resolve("x.o"));
    }

    @Test
    void truncatedProtobuf() throws IOException {
        byte[] whole = Files.readAllBytes(LENET);
        Path cut = Files.write(tmp.resolve("truncated.onnx"), Arrays.copyOf(whole, whole.length / 2));
        assertModelError(CommandLineRun.of("compile", cut.toString(), "-o", tmp.resolve("cut.o").toString()), "truncated.onnx");
        assertNoFile(tmp.resolve("cut.o"));
    }

    @Test
    void unknownOperatorIsNamed() throws IOException {
        Path model = writeModel(tmp.resolve("fancy.onnx"), node("FancyOp", "fancy1"));
        assertModelError(CommandLineRun.of("compile", model.toString(), "-o", tmp.resolve("f.o").toString()), "FancyOp", "fancy1");
        assertNoFile(tmp.resolve("f.o"));
    }

    @Test
    void unsupportedAttributeValueIsNamed() throws IOException {
        Onnx.NodeProto.Builder n = node("LeakyRelu", "leaky").toBuilder().clearAttribute();
        Path model = writeModel(tmp.resolve("attr.onnx"), n.addAttribute(Onnx.AttributeProto.newBuilder()
            .setName("alpha").setType(Onnx.AttributeProto.AttributeType.STRING).setS(ByteString.copyFromUtf8("big"))).build());
        assertModelError(CommandLineRun.of("compile", model.toString(), "-o", tmp.resolve("a.o").toString()), "leaky", "alpha");
    }

    @Test
    void attributeValueOutOfRangeIsNamed() throws IOException {
        Onnx.NodeProto flatten = node("Flatten", "flat").toBuilder().addAttribute(Onnx.AttributeProto.newBuilder()
            .setName("axis").setType(Onnx.AttributeProto.AttributeType.INT).setI(7)).build();
        Path model = writeModel(tmp.resolve("flat.onnx"), flatten);
        assertModelError(CommandLineRun.of("compile", model.toString(), "-o", tmp.resolve("fl.o").toString()), "flat", "axis");
        assertNoFile(tmp.resolve("fl.o"));
    }

    @Test
    void inputOfWrongShape() {
        Path input = tmp.resolve("input_0.pb");
        TensorProtos.write(input, new NamedTensor("image", Tensor.zeros(ElementType.FLOAT32, new long[] {1, 1, 27, 27})));
        assertModelError(CommandLineRun.of("run", LENET.toString(), "--input", "image=" + input), "image", "27");
    }

    @Test
    void inputOfWrongType() {
        Path input = tmp.resolve("input_0.pb");
        TensorProtos.write(input, new NamedTensor("image", Tensor.zeros(ElementType.INT64, new long[] {1, 1, 28, 28})));
        assertModelError(CommandLineRun.of("run", LENET.toString(), "--input", "image=" + input), "image", "int64");
    }

    @Test
    void dimensionProductThatOverflows() {
        assertModelError(CommandLineRun.of("compile", LENET.toString(), "--shape", "image=4294967296x4294967296x28x28",
            "-o", tmp.resolve("big.o").toString()), "image");
        assertNoFile(tmp.resolve("big.o"));
    }

    @Test
    void tensorsLargerThanMemory() {
        Path input = tmp.resolve("input_0.pb");
        TensorProtos.write(input, new NamedTensor("image", Tensor.zeros(ElementType.FLOAT32, new long[] {1, 1, 28, 28})));
        CommandLineRun run = CommandLineRun.of("run", LENET.toString(), "--shape", "image=100000000x1x28x28",
            "--input", "image=" + input, "--output", tmp.resolve("out").toString());
        assertModelError(run, "memory", "GiB");
        assertFalse(Files.exists(tmp.resolve("out")), "output folder created for a run that failed");
    }

    @Test
    void usageErrorsExitWithTwo() {
        assertUsageError(CommandLineRun.of("compile", LENET.toString(), "--emit", "pdf"), "pdf");
        assertUsageError(CommandLineRun.of("compile", LENET.toString(), "--shape", "image=1xAx28x28"), "image=1xAx28x28");
        assertUsageError(CommandLineRun.of("run", LENET.toString(), "--frobnicate"), "--frobnicate");
        assertUsageError(CommandLineRun.of("compile", LENET.toString(), "--target", "vax"), "vax");
        assertUsageError(CommandLineRun.of("compile", LENET.toString(), "--dtype", "float7"), "float7");
    }

    /** The help a usage error points to is the command's own, named in full. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"'--frobnicate', byodt", "'sweep merge shard --out merged --frobnicate', byodt sweep merge",
        "'dtypes --frobnicate', byodt dtypes"})
    void usageErrorsPointToTheirCommandsHelp(String arguments, String command) {
        CommandLineRun run = CommandLineRun.of(arguments.split(" "));
        assertUsageError(run, "--frobnicate");
        assertTrue(run.err().contains("Try '" + command + " --help'."), run.err());
    }

    @Test
    void verboseShowsTheStackTrace() {
        CommandLineRun run = CommandLineRun.of("inspect", tmp.resolve("absent.onnx").toString(), "--verbose");
        assertEquals(1, run.exitCode());
        assertTrue(run.err().contains("\tat "), run.err());
    }

    private static void assertNoFile(Path p) {
        assertFalse(Files.exists(p), p + " was left behind");
        try (Stream<Path> siblings = Files.list(p.getParent())) {
            assertTrue(siblings.noneMatch(s -> s.getFileName().toString().startsWith(p.getFileName().toString())),
                "a partial output was left beside " + p);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static Onnx.NodeProto node(String opType, String name) {
        return Onnx.NodeProto.newBuilder().setOpType(opType).setName(name).addInput("x").addOutput("y").build();
    }

    /** A one-node model from x: float[1,4] to y: float[1,4]. */
    private static Path writeModel(Path file, Onnx.NodeProto node) throws IOException {
        Onnx.TypeProto type = Onnx.TypeProto.newBuilder().setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(1)
            .setShape(Onnx.TensorShapeProto.newBuilder()
                .addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(1))
                .addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(4)))).build();
        Onnx.ModelProto model = Onnx.ModelProto.newBuilder().setIrVersion(8)
            .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(17))
            .setGraph(Onnx.GraphProto.newBuilder().setName("g").addNode(node)
                .addInput(Onnx.ValueInfoProto.newBuilder().setName("x").setType(type))
                .addOutput(Onnx.ValueInfoProto.newBuilder().setName("y").setType(type)))
            .build();
        Files.write(file, model.toByteArray());
        return file;
    }
}
