package dev.byodt.cli.report;

import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportWritersTest {
    @TempDir
    Path dir;

    @Test
    void jsonRoundTripKeepsEveryFigureIncludingInfinityAndNulls() throws IOException {
        ComparisonReport sweep = SampleReports.sweep();
        List<ReportEntry> entries = new ArrayList<>(sweep.entries());
        entries.add(new ReportEntry(entries.size(), "fp8e4m3", "exact", "truncate", "wrap", List.of(new OutputFigures("y",
            new Top1Figures(3, 0, null, null, 1.0 / 3, 3, null), new ErrorFigures(30, 28, 448, Double.NaN, 0.25, Double.NEGATIVE_INFINITY, 1, 1, 5)))));
        ComparisonReport report = new ComparisonReport(sweep.setup(), 30, "2/3", entries);
        Path file = dir.resolve("r.json");
        String json = ReportJson.toJson(report);
        Files.writeString(file, json);
        assertEquals(report, ReportJson.read(file));
        assertTrue(json.contains("\"format\": \"byodt-comparison-1\""), json);
        assertTrue(json.contains("\"sqnrDb\": \"Infinity\""), json);
        assertTrue(json.contains("\"modelSha256\": \"" + "ab".repeat(32) + "\""), json);
        assertTrue(json.contains("\"multiplyAdd\": \"separate\""), json);
    }

    @Test
    void jsonThatIsNotAReportIsNamed() throws IOException {
        Path file = Files.writeString(dir.resolve("other.json"), "{\"a\": 1}");
        String message = assertThrows(ByodtException.class, () -> ReportJson.read(file)).getMessage();
        assertTrue(message.startsWith(file + " is not a byodt comparison report"), message);
    }

    @Test
    void csvRoundTrip() {
        RunSetup awkward = new RunSetup("models/a, \"b\".onnx", "00", "riscv64", "fused", "1", "images in x\ny (3 images)", "onnxruntime");
        ComparisonReport report = new ComparisonReport(awkward, 1, null, List.of(new ReportEntry(0, "custom[posit]16", "exact", "nearest", "saturate",
            List.of(SampleReports.figures(0.89, 0.885, Double.POSITIVE_INFINITY)))));
        List<List<String>> rows = parseCsv(ReportCsv.toCsv(report));
        assertEquals(2, rows.size());
        assertEquals(ReportCsv.COLUMNS, rows.get(0));
        List<String> row = rows.get(1);
        assertEquals("custom[posit]16", row.get(ReportCsv.COLUMNS.indexOf("dtype")));
        assertEquals("models/a, \"b\".onnx", row.get(ReportCsv.COLUMNS.indexOf("model")));
        assertEquals("images in x\ny (3 images)", row.get(ReportCsv.COLUMNS.indexOf("data")));
        assertEquals(0.885, Double.parseDouble(row.get(ReportCsv.COLUMNS.indexOf("test_top1"))));
        assertEquals(Double.POSITIVE_INFINITY, Double.parseDouble(row.get(ReportCsv.COLUMNS.indexOf("sqnr_db"))));
        assertEquals("", row.get(ReportCsv.COLUMNS.indexOf("shard")));
        assertEquals("riscv64", row.get(ReportCsv.COLUMNS.indexOf("target")));
        assertEquals("fused", row.get(ReportCsv.COLUMNS.indexOf("multiply_add")));
    }

    /** An RFC 4180 reader, written for this test independently of the writer's quoting. */
    static List<List<String>> parseCsv(String text) {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                row.add(field.toString());
                field.setLength(0);
            } else if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                row.add(field.toString());
                field.setLength(0);
                rows.add(row);
                row = new ArrayList<>();
                i++;
            } else {
                field.append(c);
            }
        }
        assertTrue(row.isEmpty() && field.isEmpty(), "the CSV ends with CRLF");
        return rows;
    }

    @Test
    void tableShowsOneRowPerConfiguration() {
        String table = ReportTable.render(SampleReports.sweep());
        assertTrue(table.contains("(top-1 89.00% on 1000 labelled items)"), table);
        String posit8 = table.lines().filter(l -> l.startsWith("custom[posit]8 ")).findFirst().orElseThrow();
        // posit8 in the sample: 89% - 5% = 84.00%, a drop of 5 points, SQNR 6*8-20 = 28 dB.
        assertTrue(posit8.contains("84.00%") && posit8.contains("+5.00") && posit8.contains("28.0"), posit8);
        String float32 = table.lines().filter(l -> l.startsWith("float32 ")).findFirst().orElseThrow();
        assertTrue(float32.contains(" inf "), float32);
        assertEquals(2 + 4 + SampleReports.sweep().entries().size() + 1, table.lines().count());
    }

    @Test
    void modelHashIsSha256() {
        // SHA-256 of "abc", FIPS 180-2 appendix B.1.
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", ModelHash.sha256("abc".getBytes()));
    }
}
