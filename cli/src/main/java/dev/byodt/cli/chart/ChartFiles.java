package dev.byodt.cli.chart;

import dev.byodt.runtime.AtomicFiles;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.text.TextUtils;
import org.jfree.svg.SVGGraphics2D;

import javax.imageio.ImageIO;
import java.awt.Rectangle;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;

/** Draws a chart as PNG (through Java2D) or SVG (through JFreeSVG), written atomically. */
public final class ChartFiles {
    static {
        // JFreeChart draws rotated text (the y-axis titles) as glyph outlines by default, a workaround for
        // old JDKs; drawn as text instead, the titles stay text in SVG, searchable and selectable.
        TextUtils.setUseDrawRotatedStringWorkaround(false);
    }

    private ChartFiles() {}

    public static void writePng(JFreeChart chart, Path file, int width, int height) {
        AtomicFiles.write(file, png(chart, width, height));
    }

    /** The chart as PNG bytes. */
    public static byte[] png(JFreeChart chart, int width, int height) {
        BufferedImage image = chart.createBufferedImage(width, height);
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        try {
            ImageIO.write(image, "png", png);
        } catch (IOException e) {
            throw new IllegalStateException("PNG encoding into memory failed", e);
        }
        return png.toByteArray();
    }

    /** The chart as a standalone SVG document (with its XML declaration). */
    public static String svgDocument(JFreeChart chart, int width, int height) { return draw(chart, width, height).getSVGDocument(); }

    /** The chart as an {@code <svg>} element, to inline into HTML. */
    public static String svgElement(JFreeChart chart, int width, int height) { return draw(chart, width, height).getSVGElement(); }

    public static void writeSvg(JFreeChart chart, Path file, int width, int height) {
        AtomicFiles.writeString(file, svgDocument(chart, width, height));
    }

    private static SVGGraphics2D draw(JFreeChart chart, int width, int height) {
        SVGGraphics2D g2 = new SVGGraphics2D(width, height);
        chart.draw(g2, new Rectangle(width, height));
        return g2;
    }
}
