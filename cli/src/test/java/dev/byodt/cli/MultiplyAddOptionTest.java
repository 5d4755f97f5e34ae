package dev.byodt.cli;

import dev.byodt.cli.report.ReportJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * --multiply-add reaches the code each command compiles: compile's IR fuses its multiply-adds, run's outputs change
 * and its report says so (the target line, the JSON setup's multiplyAdd, the CSV's multiply_add), bench measures and checks the fused model, and an unknown mode is a one-line usage error.
 */
class MultiplyAddOptionTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models")).resolve("lenet5-fashion.onnx");

    @TempDir
    Path dir;

    @Test
    void compileFusesEveryMultiplyAddOnlyWhenAsked() throws IOException {
        Path fused = dir.resolve("fused.ll"), separate = dir.resolve("separate.ll");
        assertEquals(0, CommandLineRun.of("compile", LENET.toString(), "--emit", "llvm", "--multiply-add", "fused", "-o", fused.toString()).exitCode());
        assertEquals(0, CommandLineRun.of("compile", LENET.toString(), "--emit", "llvm", "-o", separate.toString()).exitCode());
        assertTrue(Files.readString(fused).contains("@llvm.fma."), "fused: llvm.fma");
        assertFalse(Files.readString(fused).contains("fmuladd"), "fused: never llvm.fmuladd, whose rounding the target picks");
        assertFalse(Files.readString(separate).contains("@llvm.fma."), "separate: no llvm.fma");
    }

    @Test
    void runRecordsTheModeAndItsFiguresDiffer() throws IOException {
        Path json = dir.resolve("r.json"), csv = dir.resolve("r.csv");
        CommandLineRun fused = CommandLineRun.of("run", LENET.toString(), "--dtype", "float32", "--reference", "onnxruntime",
            "--multiply-add", "fused", "--json", json.toString(), "--csv", csv.toString());
        CommandLineRun separate = CommandLineRun.of("run", LENET.toString(), "--dtype", "float32", "--reference", "onnxruntime");
        assertEquals(0, fused.exitCode(), fused.err());
        assertEquals(0, separate.exitCode(), separate.err());
        assertTrue(fused.out().contains("--multiply-add fused"), fused.out());
        assertFalse(separate.out().contains("--multiply-add"), separate.out());
        assertNotEquals(row(fused.out()), row(separate.out()), "the figures against ONNX Runtime differ");
        assertEquals("fused", ReportJson.read(json).setup().multiplyAdd());
        List<String> lines = Files.readAllLines(csv);
        assertTrue(lines.get(0).contains(",target,multiply_add,"), lines.get(0));
        assertTrue(lines.get(1).contains(", --multiply-add fused\",fused,"), "the target, quoted, then the mode: " + lines.get(1));
    }

    @Test
    void benchMeasuresTheFusedModelAndChecksItsAgreement() {
        CommandLineRun run = CommandLineRun.of("bench", LENET.toString(), "--threads", "1", "--batch", "1", "--seconds", "0.05",
            "--multiply-add", "fused");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().startsWith("float32 (multiply-add fused)"), run.out());
    }

    @Test
    void anUnknownModeIsAOneLineUsageError() {
        CommandLineRun run = CommandLineRun.of("compile", LENET.toString(), "--emit", "llvm", "--multiply-add", "contract",
            "-o", dir.resolve("x.ll").toString());
        assertEquals(Main.USAGE_ERROR, run.exitCode(), run.err());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains("unknown --multiply-add 'contract' (separate or fused)"), run.err());
    }

    /** The report table's float32 row. */
    private static String row(String out) {
        return out.lines().filter(l -> l.startsWith("float32 ")).findFirst().orElse("no float32 row in:\n" + out);
    }
}
