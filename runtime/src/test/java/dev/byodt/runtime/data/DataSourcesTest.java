package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** IDX through the common interface, batch layouts, normalization and --limit. */
class DataSourcesTest {
    static final Path SAMPLE = Path.of(System.getProperty("byodt.modelsDir", "models"), "fashion-mnist-sample");

    @TempDir
    Path dir;

    @Test
    void idxItemsAreImagesOfOneChannel() {
        IdxSource source = IdxSource.testSet(SAMPLE, 5);
        assertArrayEquals(new long[] {1, 28, 28}, source.itemShape());
        assertEquals(5, source.size());
        // The first Fashion-MNIST test image is an ankle boot (class 9), the second a pullover (class 2).
        assertEquals(9, source.label(0));
        assertEquals(2, source.label(1));
        float[] second = ImageFolderSourceTest.item(source, 1);
        assertEquals(784, second.length);
        assertTrue(source.description().contains("pixel/255"), source.description());
    }

    @Test
    void batchLayoutFromTheModelInput() {
        IdxSource source = IdxSource.testSet(SAMPLE, 3);
        assertEquals(1, BatchLayout.of(source, new TensorSpec("x", ElementType.FLOAT32, new long[] {1, 1, 28, 28})).itemsPerCall());
        BatchLayout eight = BatchLayout.of(source, new TensorSpec("x", ElementType.FLOAT32, new long[] {8, 1, 28, 28}));
        assertEquals(8, eight.itemsPerCall());
        assertEquals(2, eight.callsFor(9));
        assertEquals(1, BatchLayout.of(source, new TensorSpec("x", ElementType.FLOAT32, new long[] {1, 28, 28})).itemsPerCall());
        String message = assertThrows(ByodtException.class,
            () -> BatchLayout.of(source, new TensorSpec("x", ElementType.FLOAT32, new long[] {1, 3, 32, 32}))).getMessage();
        assertTrue(message.startsWith("input 'x' has shape 1x3x32x32 but each item of IDX"), message);
        assertTrue(message.contains("is 1x28x28"), message);
        assertTrue(message.endsWith("a symbolic dimension is 1 unless --shape x=DIMS gives it)"), message);
        assertThrows(ByodtException.class, () -> BatchLayout.of(source, new TensorSpec("x", ElementType.INT64, new long[] {1, 1, 28, 28})));
    }

    @Test
    void normalizationPerChannel() throws IOException {
        ImageFolderSourceTest.rgb(dir.resolve("a.png"), 1, 2, 0xFF3300);
        DataSource raw = ImageFolderSource.open(dir.resolve("a.png"), null, new ImagePreprocessing(3, 2, 1));
        DataSource normalized = new NormalizedSource(raw, new Normalization(new double[] {0.5, 0, 0}, new double[] {0.5, 0.2, 1}));
        // R = 1 -> (1 - 0.5) / 0.5 = 1; G = 0x33/255 = 0.2 -> 0.2 / 0.2 = 1; B = 0 -> 0.
        assertArrayEquals(new float[] {1, 1, 1, 1, 0, 0}, ImageFolderSourceTest.item(normalized, 0), 1e-6f);
        assertTrue(normalized.description().endsWith("mean [0.5, 0.0, 0.0], std [0.5, 0.2, 1.0]"), normalized.description());
        String message = assertThrows(ByodtException.class,
            () -> new NormalizedSource(raw, new Normalization(new double[] {0.5, 0.5}, new double[] {1}))).getMessage();
        assertTrue(message.contains("give 1 value or 3"), message);
        assertThrows(ByodtException.class, () -> new Normalization(new double[] {0}, new double[] {0}));
    }

    @Test
    void firstItemsLimitsTheSource() {
        DataSource three = IdxSource.testSet(SAMPLE, 10).firstItems(3);
        assertEquals(3, three.size());
        assertEquals(9, three.label(0));
        assertThrows(IndexOutOfBoundsException.class, () -> three.label(3));
    }

    @Test
    void emptyIdxSetIsAnError() throws IOException {
        Files.write(dir.resolve("t10k-images-idx3-ubyte"), new byte[] {0, 0, 8, 3, 0, 0, 0, 0, 0, 0, 0, 28, 0, 0, 0, 28});
        Files.write(dir.resolve("t10k-labels-idx1-ubyte"), new byte[] {0, 0, 8, 1, 0, 0, 0, 0});
        assertEquals(dir.resolve("t10k-images-idx3-ubyte") + " holds no images",
            assertThrows(ByodtException.class, () -> IdxSource.testSet(dir, 100)).getMessage());
    }
}
