package dev.byodt.runtime;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads IDX files, the format of MNIST and Fashion-MNIST, plain or gzipped (recognised by the gzip magic
 * bytes, not by the file name). An IDX file is a big-endian header (magic 0x0000TTNN: element type TT,
 * NN dimensions; then NN 32-bit sizes) followed by the elements. Both data sets use unsigned bytes.
 *
 * <p>Images become float32 pixel/255 in [0, 1] with shape [N, 1, rows, cols], the convention every
 * report states; labels become ints.
 */
public final class IdxReader {
    private static final int IMAGES_MAGIC = 0x00000803;
    private static final int LABELS_MAGIC = 0x00000801;

    private IdxReader() {}

    /** All images of an idx3-ubyte file. */
    public static Tensor readImages(Path file) { return readImages(file, Integer.MAX_VALUE); }

    /** The first {@code limit} images (or all, when the file has fewer). */
    public static Tensor readImages(Path file, int limit) {
        try (DataInputStream in = openIdx(file)) {
            long[] dims = readHeader(in, file, IMAGES_MAGIC, "image");
            long count = Math.min(dims[0], requireLimit(limit));
            long[] shape = {count, 1, dims[1], dims[2]};
            // The header's sizes are checked, overflow-safe, before the pixels are read into memory.
            long bytes = MemoryLimit.requireTensor(shape, ElementType.FLOAT32.byteSize(), file + ": " + count + " images");
            byte[] pixels = readElements(in, file, bytes / ElementType.FLOAT32.byteSize(), count + " images of " + dims[1] + "x" + dims[2]);
            Tensor images = Tensor.zeros(ElementType.FLOAT32, shape);
            for (int i = 0; i < pixels.length; i++) images.setFloat(i, (pixels[i] & 0xFF) / 255f);
            return images;
        } catch (IOException e) {
            throw readFailure(file, e);
        }
    }

    /** All labels of an idx1-ubyte file. */
    public static int[] readLabels(Path file) { return readLabels(file, Integer.MAX_VALUE); }

    /** The first {@code limit} labels (or all, when the file has fewer). */
    public static int[] readLabels(Path file, int limit) {
        try (DataInputStream in = openIdx(file)) {
            long[] dims = readHeader(in, file, LABELS_MAGIC, "label");
            long count = Math.min(dims[0], requireLimit(limit));
            byte[] bytes = readElements(in, file, count, count + " labels");
            int[] labels = new int[bytes.length];
            for (int i = 0; i < bytes.length; i++) labels[i] = bytes[i] & 0xFF;
            return labels;
        } catch (IOException e) {
            throw readFailure(file, e);
        }
    }

    /** The test split of an MNIST-style directory: t10k-images-idx3-ubyte[.gz] and t10k-labels-idx1-ubyte[.gz]. */
    public static LabeledImages readTestSet(Path directory, int limit) { return readSplit(directory, "t10k", limit); }

    /**
     * The images and labels of one split ("t10k" or "train") in a directory, checking that both files hold
     * the same number of items.
     */
    public static LabeledImages readSplit(Path directory, String split, int limit) {
        Path imagesFile = find(directory, split + "-images-idx3-ubyte");
        Path labelsFile = find(directory, split + "-labels-idx1-ubyte");
        long imageCount = itemCount(imagesFile, IMAGES_MAGIC, "image");
        long labelCount = itemCount(labelsFile, LABELS_MAGIC, "label");
        if (imageCount != labelCount) {
            throw new ByodtException(imagesFile + " has " + imageCount + " images but " + labelsFile + " has "
                + labelCount + " labels");
        }
        return new LabeledImages(readImages(imagesFile, limit), readLabels(labelsFile, limit));
    }

    /** The file with this base name in the directory, gzipped or not. */
    public static Path find(Path directory, String baseName) {
        if (!Files.isDirectory(directory)) throw new ByodtException("no such directory: " + directory);
        for (String candidate : new String[] {baseName, baseName + ".gz"}) {
            Path file = directory.resolve(candidate);
            if (Files.isRegularFile(file)) return file;
        }
        throw new ByodtException("no " + baseName + " or " + baseName + ".gz in " + directory);
    }

    private static long itemCount(Path file, int magic, String kind) {
        try (DataInputStream in = openIdx(file)) {
            return readHeader(in, file, magic, kind)[0];
        } catch (IOException e) {
            throw readFailure(file, e);
        }
    }

    private static DataInputStream openIdx(Path file) throws IOException {
        BufferedInputStream in = new BufferedInputStream(InputFiles.open(file), 1 << 16);
        in.mark(2);
        boolean gzipped = in.read() == 0x1f && in.read() == 0x8b;
        in.reset();
        InputStream content = gzipped ? new GZIPInputStream(in, 1 << 16) : in;
        return new DataInputStream(content);
    }

    /** Checks the magic number and returns the dimensions. */
    private static long[] readHeader(DataInputStream in, Path file, int expectedMagic, String kind) throws IOException {
        int magic = in.readInt();
        if (magic != expectedMagic) {
            throw new ByodtException(file + " is not an IDX " + kind + " file (magic " + hex(magic) + ", expected "
                + hex(expectedMagic) + ")");
        }
        long[] dims = new long[magic & 0xFF];
        for (int d = 0; d < dims.length; d++) {
            dims[d] = in.readInt();
            if (dims[d] < 0) throw new ByodtException(file + " has a negative dimension in its IDX header");
        }
        return dims;
    }

    private static byte[] readElements(DataInputStream in, Path file, long count, String what) throws IOException {
        if (count > Integer.MAX_VALUE - 8) throw new ByodtException(file + ": " + what + " is more than byodt reads at once");
        byte[] bytes = in.readNBytes((int) count);
        if (bytes.length < count) {
            throw new ByodtException(file + " is truncated: it should hold " + what + " but ends after "
                + bytes.length + " of " + count + " bytes of data");
        }
        return bytes;
    }

    private static long requireLimit(int limit) {
        if (limit < 0) throw new IllegalArgumentException("negative limit " + limit);
        return limit;
    }

    private static ByodtException readFailure(Path file, IOException e) {
        if (e instanceof EOFException) return new ByodtException(file + " is truncated (it ends inside the IDX data)", e);
        if (e instanceof ZipException) return new ByodtException(file + " is not a valid gzip file (" + e.getMessage() + ")", e);
        return InputFiles.cannotRead(file, e);
    }

    private static String hex(int magic) { return String.format("0x%08x", magic); }
}
