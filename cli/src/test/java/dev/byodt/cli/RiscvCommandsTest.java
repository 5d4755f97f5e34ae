package dev.byodt.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The RISC-V targets on the command line: run under qemu (the same comparison and summary as on the host),
 * --count-instructions, --stats, the P extension's options and their errors.
 */
class RiscvCommandsTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models"), "lenet5-fashion.onnx");

    @TempDir
    Path tmp;

    private static String line(String output, String label) {
        return output.lines().filter(l -> l.startsWith(label)).findFirst().orElseThrow(() -> new AssertionError(label + " not in:\n" + output));
    }

    /** The datatype's row of a comparison table (its name starts the line). */
    private static String row(String output, String dtype) { return line(output, dtype + " "); }

    @Test
    void compileTrainWritesTheTrainingStepForRiscv() throws IOException {
        Path object = tmp.resolve("step.o");
        CommandLineRun run = CommandLineRun.of("compile", LENET.resolveSibling("lenet5-fashion-untrained.onnx").toString(), "--train",
            "--optimizer", "adam", "--batch", "2", "--target", "riscv64", "--emit", "obj", "-o", object.toString());
        assertEquals(0, run.exitCode(), run.err());
        byte[] elf = Files.readAllBytes(object);
        assertEquals(0xF3, elf[18] & 0xFF, "an ELF object for RISC-V (e_machine 243)");
        String header = Files.readString(tmp.resolve("step.h"));
        assertTrue(header.contains("float32[2x1x28x28]") && header.contains("int64[2]"), "the batch and its labels: " + header);
        for (String tensor : List.of("optimizer.step", "loss", "step.gradient_counts", "step.update_counts")) {
            assertTrue(header.contains(tensor), tensor + " in " + header);
        }

        CommandLineRun wrongOptimizer = CommandLineRun.of("compile", LENET.toString(), "--train", "--optimizer", "lbfgs", "-o", tmp.resolve("x.o").toString());
        assertEquals(Main.USAGE_ERROR, wrongOptimizer.exitCode(), wrongOptimizer.out());
        assertTrue(wrongOptimizer.err().contains("--optimizer lbfgs: expected sgd, momentum or adam"), wrongOptimizer.err());
        CommandLineRun train = CommandLineRun.of("train", LENET.toString(), "--target", "riscv64", "--out", tmp.resolve("t").toString());
        assertEquals(Main.USAGE_ERROR, train.exitCode(), train.out());
        assertTrue(train.err().contains("byodt compile --train writes the training step for it"), train.err());
    }

    @Test
    void runOnRiscv64PrintsAndWritesTheHostsComparison() throws IOException {
        Path json = tmp.resolve("rv.json"), csv = tmp.resolve("rv.csv"), hostJson = tmp.resolve("host.json");
        CommandLineRun riscv = CommandLineRun.of("run", LENET.toString(), "--target", "riscv64", "--dtype", "fxp16_13", "--limit", "24",
            "--json", json.toString(), "--csv", csv.toString());
        assertEquals(0, riscv.exitCode(), riscv.err());
        String where = "riscv64 (riscv64-unknown-linux-gnu, lp64d) under qemu-riscv64";
        assertEquals("target     " + where + ", byodt " + Version.get(), line(riscv.out(), "target"));
        assertTrue(riscv.out().contains("reference  byodt float32  (top-1 "), riscv.out());
        assertTrue(line(riscv.out(), "dtype ").matches("dtype +accumulate +rounding +overflow +top-1 +drop +agree +max abs +mean abs "
            + "+mean rel +SQNR dB +NaN +inf +sat"), riscv.out());

        CommandLineRun host = CommandLineRun.of("run", LENET.toString(), "--dtype", "fxp16_13", "--limit", "24", "--json", hostJson.toString());
        assertEquals(0, host.exitCode(), host.err());
        // Float32 and fxp16_13 both ran on riscv64, and both give the host's bits: every figure is the same.
        assertEquals(row(host.out(), "fxp16_13"), row(riscv.out(), "fxp16_13"));
        JsonObject report = JsonParser.parseString(Files.readString(json)).getAsJsonObject();
        JsonObject hostReport = JsonParser.parseString(Files.readString(hostJson)).getAsJsonObject();
        assertEquals(where, report.getAsJsonObject("setup").get("target").getAsString());
        assertEquals("byodt float32", report.getAsJsonObject("setup").get("reference").getAsString());
        assertEquals(hostReport.get("entries"), report.get("entries"));
        JsonObject output = report.getAsJsonArray("entries").get(0).getAsJsonObject().getAsJsonArray("outputs").get(0).getAsJsonObject();
        assertEquals(24, output.getAsJsonObject("top1").get("items").getAsInt());
        assertEquals(240, output.getAsJsonObject("errors").get("elements").getAsInt(), "10 logits per image");
        assertTrue(output.getAsJsonObject("errors").get("saturated").getAsLong() > 0, "fxp16_13 clips LeNet's largest logits");
        List<String> rows = Files.readAllLines(csv);
        assertEquals(2, rows.size());
        assertTrue(rows.get(1).startsWith("0,fxp16_13,dtype,nearest,saturate,logits,24,24,"), rows.get(1));
        assertTrue(rows.get(1).contains(",\"" + where + "\","), rows.get(1));
    }

    /** Block datatypes on riscv64: MXFP8 E4M3 (one double per block sum) and FP8 E5M2 (two, rounded to odd) give the host's figures. */
    @Test
    void blockDatatypesOnRiscv64GiveTheHostsFigures() throws IOException {
        Path json = tmp.resolve("mx-rv.json"), hostJson = tmp.resolve("mx-host.json");
        String blocks = "/conv*=mxfp8e4m3,/fc*=mxfp8e5m2";
        CommandLineRun riscv = CommandLineRun.of("run", LENET.toString(), "--target", "riscv64", "--dtype-map", blocks, "--limit", "12", "--json", json.toString());
        assertEquals(0, riscv.exitCode(), riscv.err());
        CommandLineRun host = CommandLineRun.of("run", LENET.toString(), "--dtype-map", blocks, "--limit", "12", "--json", hostJson.toString());
        assertEquals(0, host.exitCode(), host.err());
        assertEquals(JsonParser.parseString(Files.readString(hostJson)).getAsJsonObject().get("entries"),
            JsonParser.parseString(Files.readString(json)).getAsJsonObject().get("entries"));
    }

    /**
     * Block datatypes on a 32-bit target: the quantizers' and block sums' double arithmetic in software and the
     * tiles' float32 sums give the host's figures. By default on riscv32p (riscv32 with the P extension), riscv32
     * itself under -Pexhaustive.
     */
    @Test
    void blockDatatypesOnRiscv32pGiveTheHostsFigures() throws IOException {
        blockDatatypesGiveTheHostsFigures("riscv32p");
    }

    @Test
    @Tag("exhaustive")
    void blockDatatypesOnRiscv32GiveTheHostsFigures() throws IOException {
        blockDatatypesGiveTheHostsFigures("riscv32");
    }

    private void blockDatatypesGiveTheHostsFigures(String target) throws IOException {
        Path json = tmp.resolve("mx-" + target + ".json"), hostJson = tmp.resolve("mx-host32.json");
        String blocks = "/conv1/*=mxfp4,/conv2/*=mxfp8e4m3,/conv3/*=mxint8,/fc1/*=mxfp8e5m2,/fc2/*=nvfp4";
        CommandLineRun riscv = CommandLineRun.of("run", LENET.toString(), "--target", target, "--dtype-map", blocks, "--limit", "12", "--json", json.toString());
        assertEquals(0, riscv.exitCode(), riscv.err());
        CommandLineRun host = CommandLineRun.of("run", LENET.toString(), "--dtype-map", blocks, "--limit", "12", "--json", hostJson.toString());
        assertEquals(0, host.exitCode(), host.err());
        assertEquals(JsonParser.parseString(Files.readString(hostJson)).getAsJsonObject().get("entries"),
            JsonParser.parseString(Files.readString(json)).getAsJsonObject().get("entries"));
    }

    @Test
    void runOnRiscv32WithoutADatatypePrintsTheHostsSummary() {
        CommandLineRun riscv = CommandLineRun.of("run", LENET.toString(), "--target", "riscv32", "--limit", "20");
        assertEquals(0, riscv.exitCode(), riscv.err());
        assertEquals("target    riscv32 (riscv32-unknown-linux-gnu, ilp32) under qemu-riscv32, batch 10, 2 processes",
            line(riscv.out(), "target"));
        CommandLineRun host = CommandLineRun.of("run", LENET.toString(), "--limit", "20");
        assertEquals(0, host.exitCode(), host.err());
        assertEquals(line(host.out(), "top-1"), line(riscv.out(), "top-1"));
        assertFalse(host.out().contains("target"), "the host's summary is as it was: " + host.out());
    }

    @Test
    void countInstructionsPrintsTheKernelsOfTheFirstItem() {
        CommandLineRun run = CommandLineRun.of("run", LENET.toString(), "--target", "riscv64", "--limit", "1", "--count-instructions");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("executed instructions, first item, on riscv64 (qemu's in_asm/exec log)"), run.out());
        String conv1 = run.out().lines().filter(l -> l.matches(" +[0-9]+  k[0-9]+\\.Conv\\./conv1/Conv")).findFirst().orElseThrow(() -> new AssertionError(run.out()));
        assertTrue(Long.parseLong(conv1.strip().split(" +")[0]) > 100_000, conv1);
        assertTrue(run.out().lines().anyMatch(l -> l.matches(" +[0-9]+  total, harness included")), run.out());
    }

    @Test
    void anUnknownTargetListsTheTargets() {
        CommandLineRun run = CommandLineRun.of("compile", LENET.toString(), "--target", "riscv128", "-o", tmp.resolve("x.o").toString());
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(run.err().contains("unknown target 'riscv128' (available: host, riscv64, riscv32, riscv32f, riscv64p, riscv32p)"), run.err());
    }

    @Test
    void aPTargetSaysWhichDatatypesItDoesNotServe() {
        CommandLineRun run = CommandLineRun.of("compile", LENET.toString(), "--target", "riscv64p", "--dtype", "bfloat16",
            "--emit", "obj", "-o", tmp.resolve("bf16.o").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("byodt: the P extension serves fxp16_P and fxp8_P; "
            + "bfloat16 uses base riscv64 instructions", run.err().strip());
    }

    @Test
    void lanesARegisterCannotHoldAreAOneLineUsageError() {
        CommandLineRun run = CommandLineRun.of("compile", LENET.toString(), "--target", "riscv32p", "--dtype", "fxp16_13x4",
            "-o", tmp.resolve("x4.o").toString());
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(run.err().contains("datatype fxp16_13x4 on target riscv32p: a register holds 2 16-bit lanes"), run.err());
        assertEquals(1, run.err().strip().lines().filter(line -> line.startsWith("byodt")).count(), run.err());
    }

    @Test
    void statsCountPInstructionsPerKernel() {
        CommandLineRun run = CommandLineRun.of("compile", LENET.toString(), "--target", "riscv32", "--mattr", "+p",
            "--dtype", "fxp16_13", "--accumulate", "exact", "--stats", "-o", tmp.resolve("p.o").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("static instructions on riscv32p"), run.out());
        assertTrue(run.out().contains("k1.Conv./conv1/Conv"), run.out());
        String totals = run.out().lines().filter(l -> l.endsWith("total")).findFirst().orElseThrow().strip();
        int p = Integer.parseInt(totals.split("\\s+")[2]);
        assertTrue(p > 0, "P instructions counted: " + totals);
    }

    @Test
    void badTargetOptionsAreUsageErrors() {
        String out = tmp.resolve("x.o").toString();
        CommandLineRun statsOnHost = CommandLineRun.of("compile", LENET.toString(), "--stats", "-o", out);
        assertEquals(2, statsOnHost.exitCode());
        assertTrue(statsOnHost.err().contains("--stats counts RISC-V instructions"), statsOnHost.err());
        CommandLineRun opcodeWithoutP = CommandLineRun.of("compile", LENET.toString(), "--target", "riscv64", "--p-opcode", "0x7f", "-o", out);
        assertEquals(2, opcodeWithoutP.exitCode());
        assertTrue(opcodeWithoutP.err().contains("--p-opcode goes with a P target"), opcodeWithoutP.err());
        CommandLineRun badOpcode = CommandLineRun.of("compile", LENET.toString(), "--target", "riscv64p", "--p-opcode", "0x33", "-o", out);
        assertEquals(2, badOpcode.exitCode());
        assertTrue(badOpcode.err().contains("expected 0x77"), badOpcode.err());
        CommandLineRun pOnHost = CommandLineRun.of("compile", LENET.toString(), "--mattr", "+p", "-o", out);
        assertEquals(2, pOnHost.exitCode());
        assertTrue(pOnHost.err().contains("the P extension needs a RISC-V target"), pOnHost.err());
        CommandLineRun testDataOnTarget = CommandLineRun.of("run", LENET.toString(), "--target", "riscv64", "--test-data", tmp.toString());
        assertEquals(2, testDataOnTarget.exitCode());
        CommandLineRun countOnHost = CommandLineRun.of("run", LENET.toString(), "--count-instructions");
        assertEquals(2, countOnHost.exitCode());
        assertTrue(countOnHost.err().contains("--count-instructions goes with a RISC-V --target"), countOnHost.err());
    }
}
