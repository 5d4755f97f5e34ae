package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImageFolderSourceTest {
    @TempDir
    Path dir;

    static void gray(Path file, int[][] rows) throws IOException {
        BufferedImage image = new BufferedImage(rows[0].length, rows.length, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < rows.length; y++) {
            for (int x = 0; x < rows[0].length; x++) image.getRaster().setSample(x, y, 0, rows[y][x]);
        }
        Files.createDirectories(file.getParent());
        ImageIO.write(image, "png", file.toFile());
    }

    static void rgb(Path file, int width, int height, int rgb) throws IOException {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) image.setRGB(x, y, rgb);
        }
        Files.createDirectories(file.getParent());
        ImageIO.write(image, "png", file.toFile());
    }

    static float[] item(DataSource source, int index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(source.itemElements() * 4);
            source.readItem(index, target);
            return target.toArray(ValueLayout.JAVA_FLOAT);
        }
    }

    @Test
    void grayscaleKeepsStoredValuesOverPixelMax() throws IOException {
        gray(dir.resolve("a.png"), new int[][] {{0, 51}, {255, 102}});
        ImageFolderSource source = ImageFolderSource.open(dir.resolve("a.png"), null, new ImagePreprocessing(1, 2, 2));
        assertArrayEquals(new float[] {0f, 0.2f, 1f, 0.4f}, item(source, 0));
        assertFalse(source.hasLabels());
    }

    @Test
    void bilinearHalfPixelResize() throws IOException {
        // Upsampling [0, 255] (one row) to width 4: source positions -0.25, 0.25, 0.75, 1.25 clamp to 0, 0.25, 0.75, 1.
        gray(dir.resolve("row.png"), new int[][] {{0, 255}});
        float[] up = item(ImageFolderSource.open(dir.resolve("row.png"), null, new ImagePreprocessing(1, 1, 4)), 0);
        assertArrayEquals(new float[] {0f, 0.25f, 0.75f, 1f}, up, 1e-6f);
        // Downsampling a 2x2 image to 1x1 samples the centre, the mean of the four pixels.
        gray(dir.resolve("sq.png"), new int[][] {{0, 255}, {255, 255}});
        float[] down = item(ImageFolderSource.open(dir.resolve("sq.png"), null, new ImagePreprocessing(1, 1, 1)), 0);
        assertEquals(0.75f, down[0], 1e-6f);
    }

    @Test
    void colourToGrayUsesLumaAndGrayToRgbRepeats() throws IOException {
        rgb(dir.resolve("red.png"), 1, 1, 0xFF0000);
        float[] luma = item(ImageFolderSource.open(dir.resolve("red.png"), null, new ImagePreprocessing(1, 1, 1)), 0);
        assertEquals(0.299f, luma[0], 1e-6f);
        gray(dir.resolve("g.png"), new int[][] {{51}});
        float[] rgb = item(ImageFolderSource.open(dir.resolve("g.png"), null, new ImagePreprocessing(3, 1, 1)), 0);
        assertArrayEquals(new float[] {0.2f, 0.2f, 0.2f}, rgb);
    }

    @Test
    void classFoldersGiveLabels() throws IOException {
        gray(dir.resolve("data/7/b.png"), new int[][] {{1}});
        gray(dir.resolve("data/7/a.png"), new int[][] {{2}});
        gray(dir.resolve("data/10/c.png"), new int[][] {{3}});
        ImageFolderSource numbered = ImageFolderSource.open(dir.resolve("data"), null, new ImagePreprocessing(1, 1, 1));
        assertEquals(3, numbered.size());
        // Folders in name order ("10" before "7"), images in name order within each; numbers are the labels.
        assertEquals(10, numbered.label(0));
        assertEquals(7, numbered.label(1));
        assertEquals(2 / 255f, item(numbered, 1)[0]);

        gray(dir.resolve("named/cat/x.png"), new int[][] {{1}});
        gray(dir.resolve("named/ant/y.png"), new int[][] {{1}});
        ImageFolderSource named = ImageFolderSource.open(dir.resolve("named"), null, new ImagePreprocessing(1, 1, 1));
        assertEquals(0, named.label(0));
        assertEquals(1, named.label(1));
    }

    @Test
    void labelsFileListsTheImages() throws IOException {
        gray(dir.resolve("imgs/p.png"), new int[][] {{10}});
        gray(dir.resolve("imgs/q.png"), new int[][] {{20}});
        Path labels = dir.resolve("labels.txt");
        Files.writeString(labels, "# file label\nq.png 4\n\np.png,1\n");
        ImageFolderSource source = ImageFolderSource.open(dir.resolve("imgs"), labels, new ImagePreprocessing(1, 1, 1));
        assertEquals(2, source.size());
        assertEquals(4, source.label(0));
        assertEquals(20 / 255f, item(source, 0)[0]);

        Files.writeString(labels, "q.png 4\nmissing.png 2\n");
        String missing = assertThrows(ByodtException.class,
            () -> ImageFolderSource.open(dir.resolve("imgs"), labels, new ImagePreprocessing(1, 1, 1))).getMessage();
        assertTrue(missing.contains("labels.txt line 2") && missing.contains("missing.png"), missing);
        Files.writeString(labels, "q.png cat\n");
        assertTrue(assertThrows(ByodtException.class,
            () -> ImageFolderSource.open(dir.resolve("imgs"), labels, new ImagePreprocessing(1, 1, 1))).getMessage().contains("'cat' is not an integer"));
    }

    @Test
    void unreadableImagesAndEmptyFoldersAreNamed() throws IOException {
        Files.writeString(dir.resolve("broken.png"), "this is not a png");
        ImageFolderSource source = ImageFolderSource.open(dir, null, new ImagePreprocessing(1, 2, 2));
        String message = assertThrows(ByodtException.class, () -> item(source, 0)).getMessage();
        assertTrue(message.startsWith("cannot read image") && message.contains("broken.png"), message);

        Path empty = Files.createDirectory(dir.resolve("empty"));
        assertEquals(empty + " holds no PNG or JPEG images",
            assertThrows(ByodtException.class, () -> ImageFolderSource.open(empty, null, new ImagePreprocessing(1, 2, 2))).getMessage());
        assertThrows(ByodtException.class, () -> new ImagePreprocessing(4, 2, 2));
    }
}
