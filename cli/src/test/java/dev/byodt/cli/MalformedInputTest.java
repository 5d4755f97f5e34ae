package dev.byodt.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

import static dev.byodt.cli.OnnxModels.FLOAT;
import static dev.byodt.cli.OnnxModels.INT64;
import static dev.byodt.cli.OnnxModels.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cases of issue 17 that used to end in a Java trace, an internal error, a hang, a model compiled without
 * a word, or files left behind: each is now one line on stderr, exit 1 (model or data) or 2 (usage), with no
 * output written and nothing left in the temporary folder.
 */
@Isolated("it points java.io.tmpdir, which every class's runs use, at a folder of its own")
class MalformedInputTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models"), "lenet5-fashion.onnx");
    private static final long TWO_TO_THE_20 = 1L << 20;

    @TempDir
    Path tmp;
    private Path scratch;
    private String savedTemporaryFolder;

    @BeforeEach
    void redirectTemporaryFiles() throws IOException {
        scratch = Files.createDirectory(tmp.resolve("tmp"));
        savedTemporaryFolder = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", scratch.toString());
    }

    @AfterEach
    void restoreTemporaryFolder() {
        System.setProperty("java.io.tmpdir", savedTemporaryFolder);
    }

    /** Compiles {@code model} to tmp/out.o and checks the failure: code, one line, mentions, nothing left. */
    private void assertCompileFails(Path model, int code, String... mentions) {
        assertFails(code, List.of(mentions), "compile", model.toString(), "-o", tmp.resolve("out.o").toString());
    }

    private CommandLineRun assertFails(int code, List<String> mentions, String... args) {
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(code, run.exitCode(), run.err());
        assertTrue(run.err().lines().findFirst().orElse("").startsWith("byodt: "), run.err());
        assertTrue(run.err().strip().lines().count() == 1 || code == 2 && run.err().strip().lines().skip(1).allMatch(l -> l.startsWith("Try ")),
            "expected one line, got:\n" + run.err());
        for (String m : mentions) assertTrue(run.err().contains(m), "'" + m + "' not in: " + run.err());
        assertNothingLeft();
        return run;
    }

    private void assertNothingLeft() {
        try (Stream<Path> left = Files.list(scratch); Stream<Path> outputs = Files.list(tmp)) {
            assertEquals(List.of(), left.toList(), "temporary files left behind");
            assertEquals(List.of(), outputs.filter(p -> p.getFileName().toString().startsWith("out")).toList(), "output written");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private Path model(String name, OnnxModels graph) throws IOException {
        return graph.write(tmp.resolve(name + ".onnx"));
    }

    private static OnnxModels relu() {
        return OnnxModels.graph().input("x", FLOAT, 1, 4).output("y", FLOAT, 1, 4);
    }

    // Resource limits, checked before anything is allocated or folded.

    @Test
    void constantOfShapeOfTwoToTheFortyElements() throws IOException {
        Path m = model("big", OnnxModels.graph().longs("s", TWO_TO_THE_20, TWO_TO_THE_20).output("y")
            .node(node("ConstantOfShape", "fill", new String[] {"s"}, "y")));
        assertCompileFails(m, 1, "ConstantOfShape node 'fill'", "'y'", "1048576x1048576", "TiB");
    }

    @Test
    void initializerThatDeclaresTwoToTheFortyElementsWithoutData() throws IOException {
        Path m = model("nodata", relu().declaredOnly("w", TWO_TO_THE_20, TWO_TO_THE_20)
            .node(node("Add", "add", new String[] {"x", "w"}, "y")));
        assertCompileFails(m, 1, "initializer 'w'", "1048576x1048576", "memory limit");
    }

    @Test
    void addFoldedOverTwoToTheThirtyOneElements() throws IOException {
        Path m = model("fold", OnnxModels.graph().floats("a", 1, 1L << 16, 1).floats("b", 2, 1, 1L << 15).output("y")
            .node(node("Add", "sum", new String[] {"a", "b"}, "y")));
        assertFails(1, List.of("output 'y' of Add node 'sum'", "65536x32768", "8.0 GiB", "--max-memory"),
            "compile", m.toString(), "--max-memory", "4G", "-o", tmp.resolve("out.o").toString());
    }

    @Test
    void pngOfThirtyThousandPixelsSquareIsMeasuredBeforeDecoding() throws IOException {
        Path images = Files.createDirectory(tmp.resolve("images"));
        Files.write(images.resolve("huge.png"), blankPng(30000, 30000));
        assertFails(1, List.of("huge.png", "30000x30000"), "run", LENET.toString(), "--data", images.toString());
    }

    @Test
    void idxAndNpyHeadersThatPromiseTooMuch() throws IOException {
        Path idx = Files.createDirectory(tmp.resolve("idx"));
        Files.write(idx.resolve("t10k-images-idx3-ubyte"), ByteBuffer.allocate(16).putInt(0x803)
            .putInt(Integer.MAX_VALUE).putInt(Integer.MAX_VALUE).putInt(Integer.MAX_VALUE).array());
        Files.write(idx.resolve("t10k-labels-idx1-ubyte"), ByteBuffer.allocate(8).putInt(0x801).putInt(Integer.MAX_VALUE).array());
        assertFails(1, List.of("t10k-images-idx3-ubyte"), "run", LENET.toString(), "--data", idx.toString());

        String header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1, 28, 28), }";
        ByteArrayOutputStream npy = new ByteArrayOutputStream();
        npy.write(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (byte) header.length(), 0});
        npy.write(header.getBytes(StandardCharsets.ISO_8859_1));
        Path file = Files.write(tmp.resolve("items.npy"), npy.toByteArray());
        assertFails(1, List.of("items.npy", "1099511627776x1x28x28"), "run", LENET.toString(), "--data", file.toString());
    }

    @Test
    void descriptorNestedTenThousandDeep() throws IOException {
        Path yaml = Files.writeString(tmp.resolve("deep.yaml"), "name: deep\ncode: 200\nsummary: " + "[".repeat(10_000) + "]".repeat(10_000) + "\n");
        assertFails(1, List.of("deep.yaml", "nested more than"), "dtypes", "--datatype", yaml.toString());
    }

    @Test
    void convolutionPadsOrDimensionsThatOverflow() throws IOException {
        Path pads = model("pads", OnnxModels.graph().input("x", FLOAT, 1, 1, 5, 5).floats("w", 1, 1, 1, 3, 3).output("y")
            .node(node("Conv", "conv", new String[] {"x", "w"}, "y").addAttribute(OnnxModels.ints("pads", 1L << 62, 1L << 62, 1L << 62, 1L << 62))));
        assertCompileFails(pads, 1, "Conv node 'conv'", "pads", "4611686018427387904");
        long big = Integer.MAX_VALUE;
        Path dims = model("dims", OnnxModels.graph().input("x", FLOAT, 1 << 20, 1, big, big).floats("w", 1, 1, 1, 3, 3).output("y")
            .node(node("Conv", "conv", new String[] {"x", "w"}, "y").addAttribute(OnnxModels.ints("pads", big, big, big, big))));
        assertCompileFails(dims, 1, "64 bits");
    }

    @Test
    void fifoWithNoWriterIsRefusedNotWaitedFor() throws Exception {
        Path fifo = tmp.resolve("model.onnx");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            assertFails(1, List.of("model.onnx", "not a regular file"), "inspect", fifo.toString());
        });
    }

    // Graphs that ONNX's checker refuses.

    @Test
    void nodesWithTheWrongNumberOfInputsOrOutputs() throws IOException {
        assertCompileFails(model("noout", relu().node(node("Relu", "r", new String[] {"x"}, "y")).node(node("Relu", "silent", new String[] {"x"}))),
            1, "Relu node 'silent'", "no outputs");
        assertCompileFails(model("twoout", relu().node(node("Relu", "r", new String[] {"x"}, "y", "z"))),
            1, "Relu node 'r'", "2 outputs", "takes 1");
        assertCompileFails(model("twoin", relu().node(node("Relu", "r", new String[] {"x", "x"}, "y"))),
            1, "Relu node 'r'", "2 inputs", "takes 1");
    }

    @Test
    void graphInputsOrOutputsNamedTwice() throws IOException {
        assertCompileFails(model("dupin", relu().input("x", FLOAT, 1, 4).node(node("Relu", "r", new String[] {"x"}, "y"))),
            1, "two graph inputs named 'x'");
        assertCompileFails(model("dupout", relu().output("y", FLOAT, 1, 4).node(node("Relu", "r", new String[] {"x"}, "y"))),
            1, "two graph outputs named 'y'");
    }

    @Test
    void graphWithNoOutputOrNoNodes() throws IOException {
        assertCompileFails(model("nooutput", OnnxModels.graph().input("x", FLOAT, 1, 4).node(node("Relu", "r", new String[] {"x"}, "y"))),
            1, "no graph output");
        assertCompileFails(model("nonodes", OnnxModels.graph().input("x", FLOAT, 1, 4).output("x", FLOAT, 1, 4)), 1, "no nodes");
    }

    @Test
    void convolutionWeightWithNoElements() throws IOException {
        Path m = model("empty", OnnxModels.graph().input("x", FLOAT, 1, 1, 5, 5).floats("w", 1, 0, 1, 3, 3).output("y")
            .node(node("Conv", "conv", new String[] {"x", "w"}, "y")));
        assertCompileFails(m, 1, "Conv node 'conv'", "weight 'w' has no elements");
    }

    @Test
    void outputDeclaredIntegerButComputedFloat() throws IOException {
        Path m = model("declared", OnnxModels.graph().input("x", FLOAT, 1, 4).output("y", INT64, 1, 4)
            .node(node("Relu", "r", new String[] {"x"}, "y")));
        assertCompileFails(m, 1, "graph output 'y'", "declared int64 but computed float32");
    }

    @Test
    void averagePoolPadsAsLargeAsTheWindow() throws IOException {
        Path m = model("pool", OnnxModels.graph().input("x", FLOAT, 1, 1, 5, 5).output("y")
            .node(node("AveragePool", "pool", new String[] {"x"}, "y").addAttribute(OnnxModels.ints("kernel_shape", 2, 2))
                .addAttribute(OnnxModels.ints("pads", 2, 2, 2, 2))));
        assertCompileFails(m, 1, "AveragePool node 'pool'", "not smaller than the window");
    }

    @Test
    void operatorSetNinetyNine() throws IOException {
        assertCompileFails(model("opset99", relu().opset(99).node(node("Relu", "r", new String[] {"x"}, "y"))), 1, "operator set 99");
    }

    @Test
    void reshapeThatKeepsZerosAndInfersADimension() throws IOException {
        Path m = model("reshape", OnnxModels.graph().input("x", FLOAT, 2, 0).longs("s", 0, -1).output("y")
            .node(node("Reshape", "flat", new String[] {"x", "s"}, "y").addAttribute(OnnxModels.integer("allowzero", 1))));
        assertCompileFails(m, 1, "Reshape node 'flat'", "allowzero");
    }

    // Files left behind.

    @Test
    void objectWhoseHeaderCannotBeWrittenIsNotLeft() throws IOException {
        Path m = model("ok", relu().node(node("Relu", "r", new String[] {"x"}, "y")));
        Files.createDirectory(tmp.resolve("out.h"));
        CommandLineRun run = CommandLineRun.of("compile", m.toString(), "--emit", "obj", "-o", tmp.resolve("out.o").toString());
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.err().contains("out.h"), run.err());
        assertTrue(!Files.exists(tmp.resolve("out.o")), "out.o left without its header");
    }

    @Test
    void compileKilledWhileLinkingLeavesNoTemporaryFolder() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
            "-Djava.io.tmpdir=" + scratch, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
            "compile", LENET.toString(), "--emit", "exe", "-o", tmp.resolve("out-lenet").toString())
            .redirectErrorStream(true).redirectOutput(tmp.resolve("log.txt").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (process.isAlive() && isEmpty(scratch) && System.nanoTime() < deadline) Thread.sleep(5);
            assertTrue(process.isAlive() && !isEmpty(scratch), "the compile made no temporary folder to be killed in: "
                + Files.readString(tmp.resolve("log.txt")));
            process.destroy();
            assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        } finally {
            process.destroyForcibly();
        }
        assertNothingLeft();
    }

    private static boolean isEmpty(Path folder) throws IOException {
        try (Stream<Path> entries = Files.list(folder)) {
            return entries.findAny().isEmpty();
        }
    }

    // Messages.

    @Test
    void nodeNameOrFlagWithNewlineStaysOnOneLine() throws IOException {
        Path m = model("newline", relu().node(node("FancyOp", "evil\nnode", new String[] {"x"}, "y")));
        assertCompileFails(m, 1, "FancyOp", "'evil\\nnode'");
        Path ok = model("ok", relu().node(node("Relu", "r", new String[] {"x"}, "y")));
        assertFails(2, List.of("fxp\\nbad"), "compile", ok.toString(), "--dtype", "fxp\nbad", "-o", tmp.resolve("out.o").toString());
    }

    @Test
    void hundredThousandCharacterDtypeIsNotEchoedWhole() throws IOException {
        Path ok = model("ok", relu().node(node("Relu", "r", new String[] {"x"}, "y")));
        CommandLineRun run = assertFails(2, List.of("more characters"), "compile", ok.toString(), "--dtype", "a".repeat(100_000),
            "-o", tmp.resolve("out.o").toString());
        assertTrue(run.err().length() < 2 * OneLineMessage.MAX_LENGTH, "error of " + run.err().length() + " characters");
    }

    @Test
    void maxMemoryThatIsNotASizeIsAUsageError() throws IOException {
        Path ok = model("ok", relu().node(node("Relu", "r", new String[] {"x"}, "y")));
        assertFails(2, List.of("--max-memory", "not a size"), "compile", ok.toString(), "--max-memory", "12Q",
            "-o", tmp.resolve("out.o").toString());
        assertFails(1, List.of("reading " + ok, "more than the memory limit of 16 B (--max-memory)"), "compile", ok.toString(),
            "--max-memory", "16", "-o", tmp.resolve("out.o").toString());
    }

    /** A grayscale PNG of the given size, all black: IDAT compresses its rows to almost nothing. */
    private static byte[] blankPng(int width, int height) throws IOException {
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        png.write(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
        chunk(png, "IHDR", ByteBuffer.allocate(13).putInt(width).putInt(height).put(new byte[] {8, 0, 0, 0, 0}).array());
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
        ByteArrayOutputStream idat = new ByteArrayOutputStream();
        byte[] row = new byte[width + 1], buffer = new byte[1 << 16];
        for (int y = 0; y < height; y++) {
            deflater.setInput(row);
            while (!deflater.needsInput()) idat.write(buffer, 0, deflater.deflate(buffer));
        }
        deflater.finish();
        while (!deflater.finished()) idat.write(buffer, 0, deflater.deflate(buffer));
        chunk(png, "IDAT", idat.toByteArray());
        chunk(png, "IEND", new byte[0]);
        return png.toByteArray();
    }

    private static void chunk(ByteArrayOutputStream png, String type, byte[] data) throws IOException {
        byte[] typeBytes = type.getBytes(StandardCharsets.US_ASCII);
        CRC32 crc = new CRC32();
        crc.update(typeBytes);
        crc.update(data);
        png.write(ByteBuffer.allocate(4).putInt(data.length).array());
        png.write(typeBytes);
        png.write(data);
        png.write(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }
}
