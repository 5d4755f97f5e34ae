package dev.byodt.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** The RISC-V targets on the command line: run under qemu, --stats, the P extension's options and their errors. */
class RiscvCommandsTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models"), "lenet5-fashion.onnx");

    @TempDir
    Path tmp;

    private static String line(String output, String label) {
        return output.lines().filter(l -> l.startsWith(label)).findFirst().orElseThrow(() -> new AssertionError(label + " not in:\n" + output));
    }

    /** "85.00% (17/20)" from the top-1 line. */
    private static String accuracy(String output) {
        String top1 = line(output, "top-1");
        return top1.substring("top-1".length(), top1.indexOf(')') + 1).strip();
    }

    @Test
    void runOnRiscv32GivesTheHostsAccuracy() {
        CommandLineRun riscv = CommandLineRun.of("run", LENET.toString(), "--target", "riscv32", "--dtype", "fxp16_13", "--limit", "20");
        assertEquals(0, riscv.exitCode(), riscv.err());
        assertTrue(line(riscv.out(), "target").contains("riscv32 (riscv32-unknown-linux-gnu, ilp32; 1 runs of 20 images under qemu-riscv32)"), riscv.out());
        CommandLineRun host = CommandLineRun.of("run", LENET.toString(), "--dtype", "fxp16_13", "--limit", "20");
        assertEquals(0, host.exitCode(), host.err());
        // On the host, run --dtype compares against float32: the datatype's top-1 is the fifth column of its row.
        String hostTop1 = line(host.out(), "fxp16_13").split(" +")[4];
        assertTrue(accuracy(riscv.out()).startsWith(hostTop1 + " ("), hostTop1 + " on the host, " + accuracy(riscv.out()) + " on riscv32");
        assertTrue(accuracy(riscv.out()).endsWith("/20)"), riscv.out());
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
    }
}
