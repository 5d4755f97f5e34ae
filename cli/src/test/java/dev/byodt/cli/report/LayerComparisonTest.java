package dev.byodt.cli.report;

import dev.byodt.cli.chart.ChartFiles;
import dev.byodt.cli.chart.LayerChart;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LayerComparisonTest {
    @TempDir
    Path dir;

    static LayerComparison sample() {
        LayerComparison c = new LayerComparison(List.of("conv1", "relu1", "fc"), Double.POSITIVE_INFINITY);
        // conv1: r = 3, 4 and x = 3, 4.5: signal 25, noise 0.25 -> 10 log10(100) = 20 dB, max error 0.5.
        // relu1: exact. fc: r = 1 and x = 1.1 over two inputs -> signal 2, noise 0.02 -> 20 dB.
        c.add(List.of(new LayerPair("fc", new float[] {1}, new float[] {1.1f}),
            new LayerPair("conv1", new float[] {3, 4}, new float[] {3, 4.5f}),
            new LayerPair("relu1", new float[] {3, 4}, new float[] {3, 4})));
        c.add(List.of(new LayerPair("fc", new float[] {1}, new float[] {1.1f})));
        return c;
    }

    @Test
    void figuresPerTensorInGraphOrder() {
        List<LayerFigures> layers = sample().figures();
        assertEquals(List.of("conv1", "relu1", "fc"), layers.stream().map(LayerFigures::tensor).toList());
        assertEquals(20.0, layers.get(0).errors().sqnrDb(), 1e-12);
        assertEquals(0.5, layers.get(0).errors().maxAbsError());
        assertEquals(Double.POSITIVE_INFINITY, layers.get(1).errors().sqnrDb());
        // 1.1f is 1.10000002384185791015625, so the noise is slightly above 0.02.
        assertEquals(20.0, layers.get(2).errors().sqnrDb(), 1e-5);
        assertEquals(2, layers.get(2).errors().elements());
        assertThrows(IllegalArgumentException.class,
            () -> sample().add(List.of(new LayerPair("pool", new float[] {1}, new float[] {1}))));
    }

    @Test
    void mergedEqualsOnePass() {
        LayerComparison a = new LayerComparison(List.of("conv1", "relu1", "fc"), Double.POSITIVE_INFINITY);
        a.add(List.of(new LayerPair("fc", new float[] {1}, new float[] {1.1f}),
            new LayerPair("conv1", new float[] {3, 4}, new float[] {3, 4.5f}),
            new LayerPair("relu1", new float[] {3, 4}, new float[] {3, 4})));
        LayerComparison b = new LayerComparison(List.of("conv1", "relu1", "fc"), Double.POSITIVE_INFINITY);
        b.add(List.of(new LayerPair("fc", new float[] {1}, new float[] {1.1f})));
        b.merge(a);
        assertEquals(sample().figures(), b.figures());
    }

    @Test
    void tableAndChart() throws IOException {
        List<LayerFigures> layers = sample().figures();
        String table = LayerTable.render(layers);
        assertTrue(table.lines().anyMatch(l -> l.matches("\\s*1  conv1\\s+2\\s+20\\.0\\s+0\\.500\\s+0\\.250\\s+0\\s+0\\s+0")), table);
        assertTrue(table.lines().anyMatch(l -> l.contains("relu1") && l.contains(" inf ")), table);

        Path png = dir.resolve("layers.png"), svg = dir.resolve("layers.svg");
        ChartFiles.writePng(LayerChart.create(layers, "fxp16_13"), png, LayerChart.WIDTH, LayerChart.HEIGHT);
        ChartFiles.writeSvg(LayerChart.create(layers, "fxp16_13"), svg, LayerChart.WIDTH, LayerChart.HEIGHT);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(LayerChart.WIDTH, image.getWidth());
        assertTrue(Files.size(png) > 10_000, "a drawn chart");
        String text = Files.readString(svg);
        for (String expected : List.of("conv1", "fc", "fxp16_13", "no bar (exact): relu1 (inf)", "SQNR against float32 (dB)")) {
            assertTrue(text.contains(expected), expected);
        }
    }
}
