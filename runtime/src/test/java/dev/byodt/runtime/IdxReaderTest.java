package dev.byodt.runtime;

import dev.byodt.runtime.data.DebianFashionMnist;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdxReaderTest {
    @TempDir
    Path dir;

    @Test
    void readsTheFashionMnistTestSet() {
        LabeledImages test = IdxReader.readTestSet(DebianFashionMnist.folder(), Integer.MAX_VALUE);
        assertEquals(10000, test.size());
        assertArrayEquals(new long[] {10000, 1, 28, 28}, test.images().shape());
        // The first Fashion-MNIST test image is an ankle boot (class 9), the second a pullover (class 2).
        assertEquals(9, test.labels()[0]);
        assertEquals(2, test.labels()[1]);
        int[] perClass = new int[10];
        for (int label : test.labels()) perClass[label]++;
        int[] thousandEach = new int[10];
        Arrays.fill(thousandEach, 1000);
        assertArrayEquals(thousandEach, perClass);
        float min = Float.MAX_VALUE, max = -Float.MAX_VALUE;
        for (float v : test.images().toFloatArray()) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        assertEquals(0f, min);
        assertEquals(1f, max);
    }

    @Test
    void limitReadsOnlyTheFirstItems() {
        Path fashionMnist = DebianFashionMnist.folder();
        LabeledImages five = IdxReader.readTestSet(fashionMnist, 5);
        assertArrayEquals(new long[] {5, 1, 28, 28}, five.images().shape());
        assertEquals(9, five.labels()[0]);
        Tensor all = IdxReader.readImages(fashionMnist.resolve("t10k-images-idx3-ubyte.gz"), 6);
        for (int i = 0; i < 5 * 784; i++) assertEquals(all.getFloat(i), five.images().getFloat(i));
    }

    @Test
    void readsPlainAndGzippedFilesAlike() throws IOException {
        byte[] images = idx(0x803, new int[] {2, 2, 3}, new byte[] {0, 51, (byte) 255, 1, 2, 3, 10, 20, 30, 40, 50, (byte) 128});
        byte[] labels = idx(0x801, new int[] {2}, new byte[] {7, (byte) 200});
        Files.write(dir.resolve("train-images-idx3-ubyte"), images);
        Files.write(dir.resolve("train-labels-idx1-ubyte.gz"), gzip(labels));
        LabeledImages set = IdxReader.readSplit(dir, "train", 100);
        assertArrayEquals(new long[] {2, 1, 2, 3}, set.images().shape());
        assertArrayEquals(new float[] {0f, 0.2f, 1f, 1 / 255f, 2 / 255f, 3 / 255f, 10 / 255f, 20 / 255f, 30 / 255f,
            40 / 255f, 50 / 255f, 128 / 255f}, set.images().toFloatArray());
        assertArrayEquals(new int[] {7, 200}, set.labels());

        Path gz = Files.write(dir.resolve("images.gz"), gzip(images));
        assertArrayEquals(set.images().toFloatArray(), IdxReader.readImages(gz).toFloatArray());
        // The gzip magic, not the name, decides.
        Path plainNamedGz = Files.write(dir.resolve("plain.gz"), images);
        assertArrayEquals(set.images().toFloatArray(), IdxReader.readImages(plainNamedGz).toFloatArray());
    }

    @Test
    void wrongMagicIsNamed() throws IOException {
        Path labels = Files.write(dir.resolve("labels"), idx(0x801, new int[] {1}, new byte[] {3}));
        ByodtException e = assertThrows(ByodtException.class, () -> IdxReader.readImages(labels));
        assertEquals(labels + " is not an IDX image file (magic 0x00000801, expected 0x00000803)", e.getMessage());
        Path text = Files.writeString(dir.resolve("text"), "hello, world");
        assertThrows(ByodtException.class, () -> IdxReader.readLabels(text));
    }

    @Test
    void truncatedFilesAreErrors() throws IOException {
        byte[] images = idx(0x803, new int[] {3, 4, 4}, new byte[3 * 16]);
        Path cut = Files.write(dir.resolve("cut"), Arrays.copyOf(images, images.length - 5));
        ByodtException e = assertThrows(ByodtException.class, () -> IdxReader.readImages(cut));
        assertTrue(e.getMessage().startsWith(cut + " is truncated"), e.getMessage());
        // A limit that stops before the cut reads fine.
        assertEquals(2, IdxReader.readImages(cut, 2).shape()[0]);

        byte[] zipped = gzip(images);
        Path cutGz = Files.write(dir.resolve("cut.gz"), Arrays.copyOf(zipped, zipped.length / 2));
        ByodtException gz = assertThrows(ByodtException.class, () -> IdxReader.readImages(cutGz));
        assertTrue(gz.getMessage().startsWith(cutGz + " is truncated"), gz.getMessage());

        Path headerOnly = Files.write(dir.resolve("header"), Arrays.copyOf(images, 6));
        assertThrows(ByodtException.class, () -> IdxReader.readImages(headerOnly));
    }

    @Test
    void countMismatchAndMissingFilesAreErrors() throws IOException {
        Files.write(dir.resolve("t10k-images-idx3-ubyte"), idx(0x803, new int[] {2, 1, 1}, new byte[2]));
        ByodtException missing = assertThrows(ByodtException.class, () -> IdxReader.readTestSet(dir, 10));
        assertEquals("no t10k-labels-idx1-ubyte or t10k-labels-idx1-ubyte.gz in " + dir, missing.getMessage());
        Files.write(dir.resolve("t10k-labels-idx1-ubyte"), idx(0x801, new int[] {3}, new byte[3]));
        ByodtException mismatch = assertThrows(ByodtException.class, () -> IdxReader.readTestSet(dir, 10));
        assertTrue(mismatch.getMessage().contains("has 2 images but") && mismatch.getMessage().contains("has 3 labels"),
            mismatch.getMessage());
        assertEquals("no such file: " + dir.resolve("nothing"),
            assertThrows(ByodtException.class, () -> IdxReader.readLabels(dir.resolve("nothing"))).getMessage());
    }

    private static byte[] idx(int magic, int[] dims, byte[] data) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(magic);
        for (int d : dims) out.writeInt(d);
        out.write(data);
        return bytes.toByteArray();
    }

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(bytes)) {
            out.write(data);
        }
        return bytes.toByteArray();
    }
}
