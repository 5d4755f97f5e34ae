package dev.byodt.cli.sweep;

import dev.byodt.cli.report.ComparisonReport;
import dev.byodt.cli.report.ReportEntry;
import dev.byodt.cli.report.ReportJson;
import dev.byodt.cli.report.SampleReports;
import dev.byodt.runtime.ByodtException;
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

class SweepOutputsTest {
    @TempDir
    Path dir;

    @Test
    void writesJsonCsvChartsAndHtml() throws IOException {
        Path out = dir.resolve("sweep");
        List<Path> written = SweepOutputs.write(SampleReports.sweep(), out);
        assertEquals(List.of("results.json", "results.csv", "chart-bits.png", "chart-bits.svg", "chart-fraction-bits.png",
            "chart-fraction-bits.svg", "report.html"), written.stream().map(p -> p.getFileName().toString()).toList());

        BufferedImage png = ImageIO.read(out.resolve("chart-bits.png").toFile());
        assertEquals(900, png.getWidth());
        assertEquals(700, png.getHeight());
        assertTrue(Files.size(out.resolve("chart-bits.png")) > 20_000, "a chart with lines and labels, not a blank image");
        assertTrue(distinctColours(png) > 8, "the lines are drawn in several colours");

        String bits = Files.readString(out.resolve("chart-bits.svg"));
        assertTrue(bits.startsWith("<?xml"), bits.substring(0, 40));
        for (String expected : List.of("posit", "bfloat", "float32 89.00%", "top-1 accuracy (%)", "SQNR (dB)", "bit width")) {
            assertTrue(bits.contains(expected), expected);
        }
        assertTrue(!bits.contains(">float<"), "float32 is the reference line, not a family");
        String fixed = Files.readString(out.resolve("chart-fraction-bits.svg"));
        assertTrue(fixed.contains("fxp16") && fixed.contains("fraction bits"), "fixed point chart");
        assertTrue(!fixed.contains(">posit<"), "posits are not on the fixed-point chart");

        String html = Files.readString(out.resolve("report.html"));
        assertTrue(html.contains("<td>custom[posit]12</td>"), "table row");
        assertEquals(2, html.split("<svg", -1).length - 1, "both charts inlined");
        assertTrue(!html.contains("<?xml") && !html.contains("<script") && !html.contains("src="), "self-contained");
        assertEquals(SampleReports.sweep(), ReportJson.read(out.resolve("results.json")));
    }

    @Test
    void anExactDatatypeIsNamedNotDrawn() throws IOException {
        ComparisonReport sample = SampleReports.sweep();
        ReportEntry exact = new ReportEntry(0, "custom[posit]32", "dtype", "nearest", "saturate",
            List.of(SampleReports.figures(0.89, 0.89, Double.POSITIVE_INFINITY)));
        ComparisonReport report = new ComparisonReport(sample.setup(), 1, null, List.of(exact));
        SweepOutputs.write(report, dir);
        assertTrue(Files.readString(dir.resolve("chart-bits.svg")).contains("not drawn: custom[posit]32 (SQNR inf)"));
        assertTrue(!Files.exists(dir.resolve("chart-fraction-bits.svg")), "no fixed point, no fixed-point chart");
    }

    private static int distinctColours(BufferedImage image) {
        java.util.Set<Integer> colours = new java.util.HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) colours.add(image.getRGB(x, y));
        }
        return colours.size();
    }

    @Test
    void shardsMergeBackIntoTheWholeSweep() {
        ComparisonReport whole = SampleReports.sweep();
        List<ComparisonReport> shards = List.of(shard(whole, 2, 3), shard(whole, 1, 3), shard(whole, 3, 3));
        assertEquals(whole, SweepMerge.merge(shards, List.of("s2.json", "s1.json", "s3.json")));

        String missing = assertThrows(ByodtException.class,
            () -> SweepMerge.merge(List.of(shard(whole, 1, 3), shard(whole, 3, 3)), List.of("s1.json", "s3.json"))).getMessage();
        assertTrue(missing.startsWith("the shards cover 8 of 12 configurations; missing 1, 4, 7, 10"), missing);
        String twice = assertThrows(ByodtException.class,
            () -> SweepMerge.merge(List.of(shard(whole, 1, 3), shard(whole, 1, 3)), List.of("a.json", "b.json"))).getMessage();
        assertTrue(twice.startsWith("b.json and a.json both hold configuration 0"), twice);
        ComparisonReport otherModel = new ComparisonReport(new dev.byodt.cli.report.RunSetup("m.onnx", "cd".repeat(32), "x", "separate", "0.1.0-test",
            whole.setup().data(), whole.setup().reference()), whole.sweepSize(), "2/3", shard(whole, 2, 3).entries());
        String different = assertThrows(ByodtException.class,
            () -> SweepMerge.merge(List.of(shard(whole, 1, 3), otherModel), List.of("a.json", "b.json"))).getMessage();
        assertTrue(different.startsWith("b.json comes from a different sweep than a.json: its model"), different);
        dev.byodt.cli.report.RunSetup s = whole.setup();
        ComparisonReport fused = new ComparisonReport(new dev.byodt.cli.report.RunSetup(s.model(), s.modelSha256(), s.target(), "fused",
            s.byodtVersion(), s.data(), s.reference()), whole.sweepSize(), "2/3", shard(whole, 2, 3).entries());
        String otherMode = assertThrows(ByodtException.class,
            () -> SweepMerge.merge(List.of(shard(whole, 1, 3), fused), List.of("a.json", "b.json"))).getMessage();
        assertTrue(otherMode.endsWith("its multiply-add (fused vs separate) differs"), otherMode);
    }

    private static ComparisonReport shard(ComparisonReport whole, int index, int count) {
        Shard shard = new Shard(index, count);
        List<ReportEntry> mine = shard.select(whole.entries());
        return new ComparisonReport(whole.setup(), whole.sweepSize(), shard.toString(), mine);
    }
}
