package dev.byodt.cli.report;

import dev.byodt.cli.chart.SweepChart;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A configuration that failed to compile shows in every report form with its reason and is left off the charts. */
class FailedEntryTest {
    private static final String REASON = "the datatype library posit.c is not on the classpath";

    private static ComparisonReport withFailure() {
        List<ReportEntry> entries = new ArrayList<>(SampleReports.sweep().entries());
        entries.add(0, ReportEntry.failed(0, "custom[posit]6", "dtype", "-", "-", REASON));
        List<ReportEntry> renumbered = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            ReportEntry e = entries.get(i);
            renumbered.add(new ReportEntry(i, e.dtype(), e.accumulate(), e.rounding(), e.overflow(), e.outputs(), e.failure()));
        }
        return new ComparisonReport(SampleReports.setup(), renumbered.size(), null, renumbered);
    }

    @Test
    void tableCsvJsonAndHtmlCarryTheReason() {
        ComparisonReport report = withFailure();
        String table = ReportTable.render(report);
        assertTrue(table.contains("failed: custom[posit]6 (accumulate dtype, rounding -, overflow -): " + REASON), table);
        assertTrue(table.contains("reference  byodt float32  (top-1 89.00% on 1000 labelled items)"), "the reference comes from the first entry that ran:\n" + table);
        String[] csv = ReportCsv.toCsv(report).split("\r\n");
        String emptyFigures = ",".repeat(ReportCsv.COLUMNS.indexOf("model") - ReportCsv.COLUMNS.indexOf("output") + 1);
        assertTrue(csv[1].startsWith("0,custom[posit]6,dtype,-,-" + emptyFigures + "models/lenet5-fashion.onnx,"), csv[1]);
        assertTrue(csv[1].endsWith("," + REASON), csv[1]);
        assertTrue(csv[2].endsWith(","), "a run that worked has an empty failure field: " + csv[2]);
        ComparisonReport back = ReportJson.fromJson(ReportJson.toJson(report), "test");
        assertEquals(REASON, back.entries().get(0).failure());
        assertNull(back.entries().get(1).failure());
        assertTrue(HtmlReport.render(report, List.of()).contains("failed: " + REASON));
    }

    @Test
    void theChartLeavesFailedConfigurationsOut() {
        assertNotNull(SweepChart.create(withFailure(), SweepChart.Axis.BITS));
    }
}
