package dev.byodt.compiler.aot;

import com.google.protobuf.ByteString;
import dev.byodt.compiler.codegen.ProgramSignature;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.onnx.Onnx;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** Static executables built from a hand-written model and byodt's freestanding harness, run as processes. */
class ExecutableTest {
    /** void byodt_model(const int64_t *x, int32_t *y, void *workspace): y[i] = (int32) (x[i] * 3) for 3 values. */
    private static final String TRIPLE_INT64 = """
        define void @byodt_model(ptr noalias %x, ptr noalias %y, ptr %workspace) {
        entry:
          br label %loop
        loop:
          %i = phi i64 [ 0, %entry ], [ %next, %loop ]
          %src = getelementptr i64, ptr %x, i64 %i
          %v = load i64, ptr %src
          %m = mul i64 %v, 3
          %t = trunc i64 %m to i32
          %dst = getelementptr i32, ptr %y, i64 %i
          store i32 %t, ptr %dst
          %next = add i64 %i, 1
          %done = icmp eq i64 %next, 3
          br i1 %done, label %exit, label %loop
        exit:
          ret void
        }
        """;

    @TempDir
    static Path work;
    private static Path addOne;
    private static Path tripleInt64;

    @BeforeAll
    static void buildExecutables() throws IOException {
        Emitter emitter = new Emitter(BundledTools.locate(work.resolve("cache")));
        ProgramSignature addOneSignature = new ProgramSignature("byodt_model",
            List.of(new TensorSpec("x", ElementType.FLOAT32, new long[] {1, 4})),
            List.of(new TensorSpec("y", ElementType.FLOAT32, new long[] {1, 4})), 0);
        addOne = work.resolve("add_one");
        try (HandWrittenModule model = new HandWrittenModule(HandWrittenModule.ADD_ONE)) {
            long start = System.nanoTime();
            emitter.emit(EmitKind.EXE, model.module, model.machine, addOneSignature, addOne);
            System.out.printf("exe: built in %.0f ms, %d bytes%n", (System.nanoTime() - start) / 1e6, Files.size(addOne));
        }
        ProgramSignature tripleSignature = new ProgramSignature("byodt_model",
            List.of(new TensorSpec("counts", ElementType.INT64, new long[] {3})),
            List.of(new TensorSpec("tripled", ElementType.INT32, new long[] {3})), 256);
        tripleInt64 = work.resolve("triple_int64");
        try (HandWrittenModule model = new HandWrittenModule(TRIPLE_INT64)) {
            emitter.emit(EmitKind.EXE, model.module, model.machine, tripleSignature, tripleInt64);
        }
    }

    private record Run(int exitCode, String stdout, String stderr) {}

    private static Run run(Path executable, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(executable.toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(work.toFile()).start();
        process.getOutputStream().close();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the executable did not finish");
        return new Run(process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
            new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static Path write(String name, Onnx.TensorProto tensor) throws IOException {
        Path file = work.resolve(name);
        Files.write(file, tensor.toByteArray());
        return file;
    }

    private static float[] floats(Onnx.TensorProto tensor) {
        ByteBuffer raw = tensor.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        float[] values = new float[raw.remaining() / 4];
        raw.asFloatBuffer().get(values);
        return values;
    }

    @Test
    void runsTheModelOnFloatData() throws Exception {
        Path input = write("x_float_data.pb", Onnx.TensorProto.newBuilder().addDims(1).addDims(4)
            .setDataType(Onnx.TensorProto.DataType.FLOAT_VALUE).setName("x")
            .addAllFloatData(List.of(0.5f, -2f, 1e6f, -1f)).build());
        Path out = Files.createDirectories(work.resolve("out_float_data"));
        Run run = run(addOne, "-o", out.toString(), input.toString());
        assertEquals(0, run.exitCode(), run.stderr());
        Onnx.TensorProto output = Onnx.TensorProto.parseFrom(Files.readAllBytes(out.resolve("output_0.pb")));
        assertEquals(List.of(1L, 4L), output.getDimsList());
        assertEquals(Onnx.TensorProto.DataType.FLOAT_VALUE, output.getDataType());
        assertEquals("y", output.getName());
        assertArrayEquals(new float[] {1.5f, -1f, 1000001f, 0f}, floats(output));
    }

    @Test
    void runsTheModelOnRawDataAndWritesToTheCurrentDirectoryByDefault() throws Exception {
        ByteBuffer raw = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        raw.putFloat(1f).putFloat(2f).putFloat(3f).putFloat(Float.NaN).flip();
        // Fields in an unusual order, with packed dims and an unknown field (doc_string, 12), as other writers may produce.
        byte[] dimsPacked = {0x0A, 0x02, 0x01, 0x04};
        byte[] rest = Onnx.TensorProto.newBuilder().setRawData(ByteString.copyFrom(raw)).setDocString("ignored")
            .setDataType(Onnx.TensorProto.DataType.FLOAT_VALUE).build().toByteArray();
        Path input = work.resolve("x_raw.pb");
        Files.write(input, concat(rest, dimsPacked));
        Run run = run(addOne, input.toString());
        assertEquals(0, run.exitCode(), run.stderr());
        float[] values = floats(Onnx.TensorProto.parseFrom(Files.readAllBytes(work.resolve("output_0.pb"))));
        assertArrayEquals(new float[] {2f, 3f, 4f}, java.util.Arrays.copyOf(values, 3));
        assertTrue(Float.isNaN(values[3]));
    }

    @Test
    void readsPackedInt64AndWritesInt32() throws Exception {
        Path input = write("counts.pb", Onnx.TensorProto.newBuilder().addDims(3)
            .setDataType(Onnx.TensorProto.DataType.INT64_VALUE).addAllInt64Data(List.of(-5L, 7L, 1L << 33)).build());
        Path out = Files.createDirectories(work.resolve("out_int"));
        Run run = run(tripleInt64, input.toString(), "-o", out.toString());
        assertEquals(0, run.exitCode(), run.stderr());
        Onnx.TensorProto output = Onnx.TensorProto.parseFrom(Files.readAllBytes(out.resolve("output_0.pb")));
        assertEquals(Onnx.TensorProto.DataType.INT32_VALUE, output.getDataType());
        assertEquals("tripled", output.getName());
        ByteBuffer raw = output.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        // (1 << 33) * 3 truncated to 32 bits is 0: the model's trunc, not the harness, decides that.
        assertEquals(List.of(-15, 21, 0), List.of(raw.getInt(), raw.getInt(), raw.getInt()));
    }

    @Test
    void withoutArgumentsPrintsUsageAndExitsTwo() throws Exception {
        Run run = run(addOne);
        assertEquals(2, run.exitCode());
        assertTrue(run.stderr().startsWith("usage: "), run.stderr());
        assertTrue(run.stderr().contains("input 0: x float32[1x4]"), run.stderr());
        assertTrue(run.stderr().contains("output 0: y float32[1x4]"), run.stderr());
    }

    @Test
    void aWrongShapeIsOneLineAndExitOne() throws Exception {
        Path input = write("x_short.pb", Onnx.TensorProto.newBuilder().addDims(1).addDims(3)
            .setDataType(Onnx.TensorProto.DataType.FLOAT_VALUE).addAllFloatData(List.of(1f, 2f, 3f)).build());
        Run run = run(addOne, input.toString());
        assertEquals(1, run.exitCode());
        assertEquals("byodt: " + input + ": shape [1x3] does not match: model input 'x' is float32[1x4]\n", run.stderr());
    }

    @Test
    void aWrongElementTypeIsOneLineAndExitOne() throws Exception {
        Path input = write("x_int64.pb", Onnx.TensorProto.newBuilder().addDims(1).addDims(4)
            .setDataType(Onnx.TensorProto.DataType.INT64_VALUE).addAllInt64Data(List.of(1L, 2L, 3L, 4L)).build());
        Run run = run(addOne, input.toString());
        assertEquals(1, run.exitCode());
        assertEquals("byodt: " + input + ": element type int64 does not match: model input 'x' is float32[1x4]\n", run.stderr());
    }

    @Test
    void tooFewValuesAMissingFileAndATruncatedFileAreReported() throws Exception {
        Path few = write("x_few.pb", Onnx.TensorProto.newBuilder().addDims(1).addDims(4)
            .setDataType(Onnx.TensorProto.DataType.FLOAT_VALUE).addAllFloatData(List.of(1f, 2f)).build());
        Run run = run(addOne, few.toString());
        assertEquals(1, run.exitCode());
        assertTrue(run.stderr().contains("holds 8 bytes of values"), run.stderr());

        Run missing = run(addOne, "no_such_input.pb");
        assertEquals(1, missing.exitCode());
        assertEquals("byodt: no_such_input.pb: cannot open the file (no such file or directory)\n", missing.stderr());

        byte[] whole = Onnx.TensorProto.newBuilder().addDims(1).addDims(4).setDataType(1)
            .addAllFloatData(List.of(1f, 2f, 3f, 4f)).build().toByteArray();
        Path truncated = work.resolve("x_truncated.pb");
        Files.write(truncated, java.util.Arrays.copyOf(whole, whole.length - 3));
        Run cut = run(addOne, truncated.toString());
        assertEquals(1, cut.exitCode());
        assertTrue(cut.stderr().contains("the file ends inside a field"), cut.stderr());
    }

    @Test
    void aWrongNumberOfInputFilesExitsTwo() throws Exception {
        Run run = run(addOne, "a.pb", "b.pb");
        assertEquals(2, run.exitCode());
        assertTrue(run.stderr().contains("the model has 1 input(s) but 2 file(s) were given"), run.stderr());
    }

    @Test
    void theExecutableIsStaticWithoutAnInterpreter() throws IOException {
        byte[] elf = Files.readAllBytes(addOne);
        assertEquals(0x7F, elf[0]);
        assertEquals('E', elf[1]);
        String contents = new String(elf, StandardCharsets.ISO_8859_1);
        assertFalse(contents.contains("ld-linux"), "a static executable names no dynamic loader");
        assertFalse(contents.contains("libc.so"), "and no C library");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
