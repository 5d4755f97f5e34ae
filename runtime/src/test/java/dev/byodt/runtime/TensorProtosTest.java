package dev.byodt.runtime;

import com.google.protobuf.ByteString;
import dev.byodt.onnx.Onnx.TensorProto;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TensorProtosTest {
    static final Path NODE_TESTS = Path.of(System.getProperty("byodt.onnxNodeDir", "../../shared/onnx-node"));

    @TempDir
    Path dir;

    @Test
    void float32RoundTripKeepsNameShapeAndEveryBitPattern() {
        float[] values = {0f, -0f, 1.5f, -3.25e-12f, Float.MAX_VALUE, Float.MIN_VALUE, Float.NEGATIVE_INFINITY,
            Float.intBitsToFloat(0x7fc00001)};
        Path file = dir.resolve("x.pb");
        TensorProtos.write(file, new NamedTensor("layer/conv:0", Tensor.ofFloats(new long[] {2, 4}, values)));
        NamedTensor back = TensorProtos.read(file);
        assertEquals("layer/conv:0", back.name());
        assertArrayEquals(new long[] {2, 4}, back.tensor().shape());
        assertEquals(ElementType.FLOAT32, back.tensor().type());
        float[] read = back.tensor().toFloatArray();
        for (int i = 0; i < values.length; i++) {
            assertEquals(Float.floatToRawIntBits(values[i]), Float.floatToRawIntBits(read[i]), "element " + i);
        }
    }

    @Test
    void integerRoundTrips() {
        long[] longs = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE, 1L << 40};
        Path file = dir.resolve("i64.pb");
        TensorProtos.write(file, new NamedTensor("shape", Tensor.ofLongs(new long[] {6}, longs)));
        assertArrayEquals(longs, TensorProtos.read(file).tensor().toLongArray());

        Tensor ints = Tensor.zeros(ElementType.INT32, new long[] {3});
        ints.setLong(0, Integer.MIN_VALUE);
        ints.setLong(1, -7);
        ints.setLong(2, Integer.MAX_VALUE);
        Path intFile = dir.resolve("i32.pb");
        TensorProtos.write(intFile, new NamedTensor("", ints));
        Tensor back = TensorProtos.read(intFile).tensor();
        assertEquals(ElementType.INT32, back.type());
        assertArrayEquals(new long[] {Integer.MIN_VALUE, -7, Integer.MAX_VALUE}, back.toLongArray());
    }

    @Test
    void scalarAndEmptyTensorsRoundTrip() {
        Path scalar = dir.resolve("s.pb");
        TensorProtos.write(scalar, new NamedTensor("s", Tensor.ofFloats(new long[] {}, new float[] {42f})));
        Tensor s = TensorProtos.read(scalar).tensor();
        assertEquals(0, s.rank());
        assertEquals(42f, s.getFloat(0));

        Path empty = dir.resolve("e.pb");
        TensorProtos.write(empty, new NamedTensor("e", Tensor.zeros(ElementType.FLOAT32, new long[] {3, 0})));
        Tensor e = TensorProtos.read(empty).tensor();
        assertArrayEquals(new long[] {3, 0}, e.shape());
        assertEquals(0, e.elementCount());
    }

    @Test
    void rawDataIsLittleEndian() {
        TensorProto proto = TensorProto.newBuilder().setDataType(1).addDims(2)
            .setRawData(ByteString.copyFrom(new byte[] {0, 0, (byte) 0x80, 0x3f, 0, 0, 0, (byte) 0xc0})).build();
        assertArrayEquals(new float[] {1f, -2f}, TensorProtos.fromProto(proto, "t").toFloatArray());
        TensorProto written = TensorProtos.toProto("t", Tensor.ofLongs(new long[] {1}, new long[] {0x0102030405060708L}));
        assertArrayEquals(new byte[] {8, 7, 6, 5, 4, 3, 2, 1}, written.getRawData().toByteArray());
    }

    @Test
    void typedFieldsAreRead() {
        TensorProto floats = TensorProto.newBuilder().setDataType(1).addDims(1).addDims(3)
            .addAllFloatData(List.of(1f, 2f, -0.5f)).build();
        assertArrayEquals(new float[] {1f, 2f, -0.5f}, TensorProtos.fromProto(floats, "t").toFloatArray());
        TensorProto longs = TensorProto.newBuilder().setDataType(7).addDims(2).addAllInt64Data(List.of(-5L, 1L << 33)).build();
        assertArrayEquals(new long[] {-5, 1L << 33}, TensorProtos.fromProto(longs, "t").toLongArray());
        TensorProto ints = TensorProto.newBuilder().setDataType(6).addDims(2).addAllInt32Data(List.of(-5, 9)).build();
        assertArrayEquals(new long[] {-5, 9}, TensorProtos.fromProto(ints, "t").toLongArray());
    }

    @Test
    void unsupportedTypeNamesFileTensorAndType() throws IOException {
        Path file = dir.resolve("d.pb");
        Files.write(file, TensorProto.newBuilder().setName("weights").setDataType(14).addDims(1)
            .addFloatData(0.1f).addFloatData(0).build().toByteArray());
        ByodtException e = assertThrows(ByodtException.class, () -> TensorProtos.read(file));
        assertTrue(e.getMessage().contains("d.pb") && e.getMessage().contains("'weights'")
            && e.getMessage().contains("complex64"), e.getMessage());
    }

    @Test
    void dataThatDoesNotMatchTheShapeIsAnError() {
        TensorProto raw = TensorProto.newBuilder().setName("w").setDataType(1).addDims(2).addDims(2)
            .setRawData(ByteString.copyFrom(new byte[12])).build();
        ByodtException e = assertThrows(ByodtException.class, () -> TensorProtos.fromProto(raw, "initializer 'w'"));
        assertTrue(e.getMessage().contains("12 bytes") && e.getMessage().contains("16"), e.getMessage());
        TensorProto typed = TensorProto.newBuilder().setDataType(7).addDims(3).addInt64Data(1).build();
        assertThrows(ByodtException.class, () -> TensorProtos.fromProto(typed, "t"));
        TensorProto negative = TensorProto.newBuilder().setDataType(1).addDims(-1).build();
        assertThrows(ByodtException.class, () -> TensorProtos.fromProto(negative, "t"));
    }

    @Test
    void externalDataIsRejected() {
        TensorProto proto = TensorProto.newBuilder().setName("big").setDataType(1).addDims(4)
            .setDataLocation(TensorProto.DataLocation.EXTERNAL).build();
        ByodtException e = assertThrows(ByodtException.class, () -> TensorProtos.fromProto(proto, "initializer 'big'"));
        assertEquals("initializer 'big': external data not supported", e.getMessage());
    }

    @Test
    void filesThatAreNotTensorsAreClearErrors() throws IOException {
        ByodtException missing = assertThrows(ByodtException.class, () -> TensorProtos.read(dir.resolve("none.pb")));
        assertEquals("no such file: " + dir.resolve("none.pb"), missing.getMessage());
        Path text = Files.writeString(dir.resolve("notes.txt"), "this is not a tensor\n");
        ByodtException notProto = assertThrows(ByodtException.class, () -> TensorProtos.read(text));
        assertTrue(notProto.getMessage().contains("is not an ONNX TensorProto"), notProto.getMessage());
    }

    @Test
    void writeReplacesAtomicallyAndLeavesNoTemporaryFiles() throws IOException {
        Path file = dir.resolve("out.pb");
        TensorProtos.write(file, new NamedTensor("a", Tensor.ofFloats(new long[] {1}, new float[] {1})));
        TensorProtos.write(file, new NamedTensor("b", Tensor.ofFloats(new long[] {2}, new float[] {2, 3})));
        assertEquals("b", TensorProtos.read(file).name());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList());
        }
        // The writer makes missing folders, so the one it cannot make is under a plain file.
        Path nowhere = Files.writeString(dir.resolve("plain"), "x").resolve("out.pb");
        ByodtException e = assertThrows(ByodtException.class,
            () -> TensorProtos.write(nowhere, new NamedTensor("a", Tensor.ofFloats(new long[] {1}, new float[] {1}))));
        assertTrue(e.getMessage().startsWith("cannot write " + nowhere), e.getMessage());
    }

    /** The ONNX Conv example: x = 0..34 as 1x1x7x5, W = ones(1x1x3x3), strides 2, pads 1. */
    @Test
    void readsTheOnnxConvTestData() {
        Path data = NODE_TESTS.resolve("test_conv_with_strides_padding/test_data_set_0");
        Tensor x = TensorProtos.read(data.resolve("input_0.pb")).tensor();
        assertArrayEquals(new long[] {1, 1, 7, 5}, x.shape());
        for (int i = 0; i < 35; i++) assertEquals(i, x.getFloat(i));
        Tensor w = TensorProtos.read(data.resolve("input_1.pb")).tensor();
        assertArrayEquals(new long[] {1, 1, 3, 3}, w.shape());
        for (int i = 0; i < 9; i++) assertEquals(1f, w.getFloat(i));
        Tensor y = TensorProtos.read(data.resolve("output_0.pb")).tensor();
        assertArrayEquals(new long[] {1, 1, 4, 3}, y.shape());
        assertArrayEquals(new float[] {12, 27, 24, 63, 108, 81, 123, 198, 141, 112, 177, 124}, y.toFloatArray());
    }

    /** Gemm with a one-element bias: the stored output must equal A*B + c computed here from the stored inputs. */
    @Test
    void readsTheOnnxGemmTestDataConsistently() {
        Path data = NODE_TESTS.resolve("test_gemm_default_single_elem_vector_bias/test_data_set_0");
        Tensor a = TensorProtos.read(data.resolve("input_0.pb")).tensor();
        Tensor b = TensorProtos.read(data.resolve("input_1.pb")).tensor();
        Tensor c = TensorProtos.read(data.resolve("input_2.pb")).tensor();
        Tensor y = TensorProtos.read(data.resolve("output_0.pb")).tensor();
        int m = (int) a.shape()[0], k = (int) a.shape()[1], n = (int) b.shape()[1];
        assertArrayEquals(new long[] {k, n}, b.shape());
        assertArrayEquals(new long[] {1}, c.shape());
        assertArrayEquals(new long[] {m, n}, y.shape());
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double sum = c.getFloat(0);
                for (int p = 0; p < k; p++) sum += (double) a.getFloat(i * k + p) * b.getFloat(p * n + j);
                assertEquals(sum, y.getFloat(i * n + j), 1e-5, "y[" + i + "," + j + "]");
            }
        }
    }

    /**
     * Every test-data tensor of every node test is either read or refused with a ByodtException naming the file:
     * most refusals name a type byodt lacks; a sequence or optional misread as a tensor is refused for its size.
     */
    @Test
    void everyNodeTestTensorIsReadOrCleanlyRefused() throws IOException {
        int read = 0, refused = 0;
        try (Stream<Path> files = Files.walk(NODE_TESTS)) {
            for (Path file : files.filter(f -> f.getFileName().toString().matches("(input|output)_\\d+\\.pb")).toList()) {
                try {
                    NamedTensor t = TensorProtos.read(file);
                    assertTrue(t.tensor().elementCount() >= 0);
                    read++;
                } catch (ByodtException e) {
                    assertTrue(e.getMessage().contains(file.toString())
                        && (e.getMessage().contains("not support") || e.getMessage().contains("memory limit")), e.getMessage());
                    refused++;
                }
            }
        }
        assertTrue(read > 1000, read + " read, " + refused + " refused");
        assertTrue(refused > 0, "the node tests include strings, sequences and optionals");
    }
}
