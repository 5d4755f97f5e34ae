package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.InputFiles;
import dev.byodt.runtime.MemoryLimit;
import dev.byodt.runtime.Shapes;

import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;
import java.awt.color.ColorSpace;
import java.awt.image.BufferedImage;
import java.awt.image.Raster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Iterator;

/**
 * Turns a PNG or JPEG file into a model input item of shape [channels, height, width], float32:
 * <ol>
 *   <li>decode (javax.imageio); grayscale images keep their stored samples, colour images are read as
 *       sRGB; an alpha channel is dropped, not composited;</li>
 *   <li>scale each sample to [0, 1] (8-bit: value/255, 16-bit: value/65535);</li>
 *   <li>match the model's channel count: RGB to 1 channel by ITU-R BT.601 luma
 *       (0.299 R + 0.587 G + 0.114 B), 1 channel to 3 by repeating it;</li>
 *   <li>resize to height x width by bilinear interpolation with half-pixel centres and edge clamping
 *       (ONNX Resize's "half_pixel" mode, no antialiasing), only when the size differs.</li>
 * </ol>
 * Mean/std normalization, when asked for, comes after this ({@link NormalizedSource}).
 */
public record ImagePreprocessing(int channels, int height, int width) {
    /** Four 16-bit bands decoded, then three float planes and their gray or resized copies. */
    private static final long DECODED_BYTES_PER_PIXEL = 4 * 2 + 6 * Float.BYTES;

    public ImagePreprocessing {
        if (channels != 1 && channels != 3) {
            throw new ByodtException("images can feed an input with 1 (grayscale) or 3 (RGB) channels, not " + channels);
        }
        if (height <= 0 || width <= 0) throw new ByodtException("images cannot be resized to " + height + "x" + width);
    }

    /** The preprocessing for a model input of shape [N,] C x H x W. */
    public static ImagePreprocessing forInput(long[] inputShape) {
        if (inputShape.length < 3) {
            throw new ByodtException("images need a model input of shape [N,] C x H x W; this one is " + Shapes.format(inputShape));
        }
        int n = inputShape.length;
        return new ImagePreprocessing((int) inputShape[n - 3], (int) inputShape[n - 2], (int) inputShape[n - 1]);
    }

    /** "1x28x28 (bilinear resize, BT.601 gray, pixel/255)", as reports record it. */
    public String describe() {
        return channels + "x" + height + "x" + width + " (" + (channels == 1 ? "grayscale by BT.601 luma" : "RGB")
            + ", bilinear resize, pixel/255)";
    }

    /** The item, as planes of height x width floats, channel after channel. */
    public float[] read(Path file) {
        BufferedImage image;
        try (ImageInputStream in = ImageIO.createImageInputStream(InputFiles.open(file))) {
            Iterator<ImageReader> readers = in == null ? Collections.emptyIterator() : ImageIO.getImageReaders(in);
            if (!readers.hasNext()) throw notAnImage(file);
            ImageReader reader = readers.next();
            try {
                reader.setInput(in, true, true);
                requireDecodable(file, reader.getWidth(0), reader.getHeight(0));
                image = reader.read(0);
            } finally {
                reader.dispose();
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof ByodtException known) throw known;
            throw new ByodtException("cannot read image " + file + ": " + e.getMessage(), e);
        }
        if (image == null) throw notAnImage(file);
        return resize(matchChannels(planes(image)), image.getHeight(), image.getWidth());
    }

    private static ByodtException notAnImage(Path file) {
        return new ByodtException("cannot read image " + file + ": not a PNG or JPEG file byodt can decode");
    }

    /**
     * The size in the image's header is checked before it is decoded: the decoded pixels (up to four bands of
     * up to 16 bits) and their float planes must fit in memory, and Java images have fewer than 2^31 pixels.
     */
    private static void requireDecodable(Path file, int width, int height) {
        long pixels = (long) width * height;
        if (pixels >= Integer.MAX_VALUE) {
            throw new ByodtException("image " + file + " is " + width + "x" + height + " pixels, more than byodt decodes (2^31)");
        }
        MemoryLimit.requireBytes(pixels * DECODED_BYTES_PER_PIXEL, "decoding image " + file + " (" + width + "x" + height + ")");
    }

    private static float[][] planes(BufferedImage image) {
        int h = image.getHeight(), w = image.getWidth();
        boolean gray = image.getColorModel().getColorSpace().getType() == ColorSpace.TYPE_GRAY
            && image.getColorModel().getNumColorComponents() == 1;
        if (gray) {
            // getRGB would pass gray through a colour-space conversion and change the stored values.
            Raster raster = image.getRaster();
            double full = (1L << raster.getSampleModel().getSampleSize(0)) - 1;
            float[] plane = new float[h * w];
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) plane[y * w + x] = (float) (raster.getSample(x, y, 0) / full);
            }
            return new float[][] {plane};
        }
        float[][] rgb = new float[3][h * w];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int argb = image.getRGB(x, y);
                for (int c = 0; c < 3; c++) rgb[c][y * w + x] = ((argb >> (16 - 8 * c)) & 0xFF) / 255f;
            }
        }
        return rgb;
    }

    private float[][] matchChannels(float[][] planes) {
        if (planes.length == channels) return planes;
        if (channels == 3) return new float[][] {planes[0], planes[0], planes[0]};
        float[] luma = new float[planes[0].length];
        for (int i = 0; i < luma.length; i++) {
            luma[i] = (float) (0.299 * planes[0][i] + 0.587 * planes[1][i] + 0.114 * planes[2][i]);
        }
        return new float[][] {luma};
    }

    private float[] resize(float[][] planes, int srcHeight, int srcWidth) {
        float[] out = new float[channels * height * width];
        for (int c = 0; c < channels; c++) {
            float[] src = planes[c];
            for (int y = 0; y < height; y++) {
                double sy = sourceCoordinate(y, srcHeight, height);
                int y0 = (int) Math.floor(sy), y1 = Math.min(y0 + 1, srcHeight - 1);
                double fy = sy - y0;
                for (int x = 0; x < width; x++) {
                    double sx = sourceCoordinate(x, srcWidth, width);
                    int x0 = (int) Math.floor(sx), x1 = Math.min(x0 + 1, srcWidth - 1);
                    double fx = sx - x0;
                    double top = src[y0 * srcWidth + x0] * (1 - fx) + src[y0 * srcWidth + x1] * fx;
                    double bottom = src[y1 * srcWidth + x0] * (1 - fx) + src[y1 * srcWidth + x1] * fx;
                    out[(c * height + y) * width + x] = (float) (top * (1 - fy) + bottom * fy);
                }
            }
        }
        return out;
    }

    /** The half-pixel source position of output pixel {@code i}, clamped into the source image. */
    private static double sourceCoordinate(int i, int srcSize, int dstSize) {
        double s = (i + 0.5) * srcSize / dstSize - 0.5;
        return Math.min(Math.max(s, 0), srcSize - 1);
    }
}
