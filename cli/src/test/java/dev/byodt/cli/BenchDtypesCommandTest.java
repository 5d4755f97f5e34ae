package dev.byodt.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The datatype microbenchmark at toy sizes: every cell is measured and the targets are judged. */
class BenchDtypesCommandTest {
    @Test
    void printsARowPerDatatypeWithEveryOperationAndTheTargets() {
        CommandLineRun run = CommandLineRun.of("bench-dtypes", "--dtypes", "custom[posit]16", "--elements", "4096",
            "--matrix", "16", "--conv-channels", "4", "--conv-size", "8", "--seconds", "0");
        assertEquals(0, run.exitCode(), run.err());
        List<String> lines = run.out().lines().toList();
        int header = lines.indexOf(lines.stream().filter(l -> l.startsWith("datatype ")).findFirst().orElseThrow());
        List<String[]> rows = lines.subList(header + 1, header + 3).stream().map(l -> l.trim().split(" +")).toList();
        assertEquals(List.of("float32", "custom[posit]16"), rows.stream().map(cells -> cells[0]).toList(), run.out());
        for (String[] cells : rows) assertEquals(1 + 4 * 4, cells.length, String.join(" ", cells));
        for (int op = 0; op < 4; op++) {
            int first = 1 + 4 * op;
            String[] float32 = rows.get(0), posit16 = rows.get(1);
            // float32 is its own reference and calls no library.
            assertEquals(List.of("1.00", "-", "-"), List.of(float32[first + 1], float32[first + 2], float32[first + 3]));
            Double.parseDouble(posit16[first]);
            Double.parseDouble(posit16[first + 1]);
            if (op == 3) {
                // The convolution is not timed against the scalar library.
                assertEquals(List.of("-", "-"), List.of(posit16[first + 2], posit16[first + 3]));
                continue;
            }
            Double.parseDouble(posit16[first + 2]);
            assertTrue(posit16[first + 3].endsWith("x"), posit16[first + 3]);
        }
        assertTrue(run.out().lines().anyMatch(l -> l.equals("Speed targets:")), run.out());
        assertFalse(run.out().contains("issue"), "the user reads no reference to the project's issues: " + run.out());
        assertTrue(run.out().contains("custom[posit]16    add and mul within 4.0x of float32:"), run.out());
        assertTrue(run.out().contains("faster than the scalar library:"), run.out());
    }

    @Test
    void theMatrixProductAccumulatesAsAsked() {
        CommandLineRun run = CommandLineRun.of("bench-dtypes", "--dtypes", "custom[posit]16", "--accumulate", "exact",
            "--elements", "1024", "--matrix", "16", "--conv-channels", "4", "--conv-size", "8", "--seconds", "0");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("ns per multiply-add (accumulate exact, multiply-add separate)"), run.out());
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("custom[posit]16 ") && !l.contains("n/a")), run.out());
    }

    /**
     * A block datatype computes only its dot products in blocks: its add and mul are bfloat16's and print as '-';
     * its matrix product and convolution are timed (both operands of the matrix product are activations, so
     * both are quantized in every node) and the matrix product is judged against 3 times float32's time. The
     * general spelling's commas do not separate datatypes.
     */
    @Test
    void blockDatatypesTimeTheirDotProductsAndTheMatrixProductTarget() {
        String spelled = "block[custom[fp6e2m3]6,16,e8m0,ceil]";
        CommandLineRun run = CommandLineRun.of("bench-dtypes", "--dtypes", "mxint8," + spelled, "--elements", "1024",
            "--matrix", "16", "--conv-channels", "4", "--conv-size", "8", "--seconds", "0");
        assertEquals(0, run.exitCode(), run.err());
        for (String datatype : List.of("mxint8", spelled)) {
            String[] cells = run.out().lines().filter(l -> l.startsWith(datatype + " ")).findFirst().orElseThrow().trim().split(" +");
            assertEquals(List.of(datatype, "-", "-"), List.of(cells[0], cells[1], cells[2]), run.out());
            for (int cell = 3; cell <= 10; cell += 4) {
                Double.parseDouble(cells[cell]);
                Double.parseDouble(cells[cell + 1]);
                assertEquals(List.of("-", "-"), List.of(cells[cell + 2], cells[cell + 3]), run.out());
            }
            assertTrue(run.out().lines().anyMatch(l -> l.matches(" +" + java.util.regex.Pattern.quote(datatype)
                + " +matmul within 3\\.0x of float32: ([0-9.]+x  (met|MISSED)|not measured  MISSED)")), run.out());
        }
        assertTrue(run.out().contains("accumulate dtype, block datatypes float32"), run.out());
    }

    @Test
    void aBlockDatatypeModelsCannotComputeInIsAUsageError() {
        CommandLineRun run = CommandLineRun.of("bench-dtypes", "--dtypes", "block[custom[posit]32,16,fxp16_12,nearest]", "--seconds", "0");
        assertEquals(Main.USAGE_ERROR, run.exitCode(), run.out());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains("its posit elements of up to 28 significant bits times two scales of 14 fraction bits"), run.err());
    }

    @Test
    void anAccumulationTheDatatypeLacksIsAUsageError() {
        CommandLineRun run = CommandLineRun.of("bench-dtypes", "--dtypes", "custom[posit]16", "--accumulate", "int:24",
            "--seconds", "0");
        assertEquals(Main.USAGE_ERROR, run.exitCode(), run.out());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains("int:24"), run.err());
    }

    @Test
    void unknownDatatypeIsAUsageError() {
        CommandLineRun run = CommandLineRun.of("bench-dtypes", "--dtypes", "custom[nonesuch]16", "--seconds", "0");
        assertEquals(Main.USAGE_ERROR, run.exitCode());
        assertTrue(run.oneLineError(), run.err());
    }
}
