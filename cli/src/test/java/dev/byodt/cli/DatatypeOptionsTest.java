package dev.byodt.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The datatype options on the command line: listing, and bad choices as one-line usage errors before compiling. */
class DatatypeOptionsTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models"), "lenet5-fashion.onnx");

    @Test
    void dtypesListsEveryBuiltInWithItsOperationsAndGaps() {
        CommandLineRun run = CommandLineRun.of("dtypes");
        assertEquals(0, run.exitCode(), run.err());
        for (String name : new String[] {"float32", "posit ", "posit_es0", "posit_es1", "posit_es3", "minifloat_e{E:2..8}",
            "float16", "bfloat", "fp8e5m2", "fp8e4m3", "fxp_{P:0..31}", "fp6e3m2", "fp6e2m3", "fp4e2m1", "e8m0", "ue4m3",
            "fp8e4m3fnuz", "fp8e5m2fnuz", "fp8e3m4"}) {
            assertTrue(run.out().contains("\n" + name) || run.out().startsWith(name), name + " missing from:\n" + run.out());
        }
        assertTrue(run.out().contains("--overflow saturate|wrap"), run.out());
        assertTrue(run.out().contains("    missing none"), run.out());
    }

    @Test
    void dtypesListsTheRoundingModesOfEachDatatypeAndWhatEachMeans() {
        CommandLineRun run = CommandLineRun.of("dtypes");
        assertEquals(0, run.exitCode(), run.err());
        String every = "    --rounding nearest|nearest-away|toward-zero|up|down|odd|stochastic\n";
        for (String name : new String[] {"posit ", "float16", "bfloat", "fp8e4m3 ", "fp4e2m1"}) {
            int at = run.out().indexOf("\n" + name);
            assertTrue(at >= 0 && run.out().indexOf(every, at) == run.out().indexOf("\n    --rounding", at) + 1, name + ":\n" + run.out());
        }
        assertTrue(run.out().contains("    --rounding nearest|nearest-away|toward-zero|up|down|stochastic\n"), "e8m0 has no odd:\n" + run.out());
        assertTrue(run.out().contains("    --rounding nearest|truncate|nearest-away|toward-zero|up|down|odd|stochastic\n"), run.out());
        assertTrue(run.out().contains("    --sr-bits 16|1|2|3|4|5|6|7|8|9|10|11|12|13|14|15\n"), run.out());
        assertTrue(run.out().contains("\n  stochastic                                   up with the probability of the cut fraction"), run.out());
        assertTrue(run.out().contains("\n  odd                                          to odd: an inexact result takes the neighbour whose last bit is 1"),
            run.out());
    }

    @Test
    void aRoundingModeTheDatatypeDoesNotTakeIsAOneLineUsageErrorNamingIt() {
        String[][] cases = {{"fxp16_13", "sideways"}, {"custom[e8m0]8", "odd"}, {"float32", "down"}, {"bfloat16", "truncate"},
            {"custom[posit]32", "stochastic"}};
        String[] expected = {"datatype fxp16_13: --rounding sideways is not one of [nearest, truncate, nearest-away, toward-zero, up, down, odd, stochastic]",
            "datatype custom[e8m0]8: --rounding odd is not one of [nearest, nearest-away, toward-zero, up, down, stochastic]",
            "--rounding down: datatype float32 has no such option",
            "datatype bfloat16: --rounding truncate is not one of [nearest, nearest-away, toward-zero, up, down, odd, stochastic]",
            "datatype custom[posit]32: --rounding stochastic takes formats of at most 16 bits"};
        for (int i = 0; i < cases.length; i++) {
            assertOneLineUsageError(expected[i], "compile", LENET.toString(), "--dtype", cases[i][0], "--rounding", cases[i][1], "--emit", "llvm");
        }
        assertOneLineUsageError("--sr-bits 4 needs --rounding stochastic", "compile", LENET.toString(), "--dtype", "bfloat16",
            "--rounding", "up", "--sr-bits", "4", "--emit", "llvm");
        assertOneLineUsageError("datatype bfloat16: --sr-bits 17 is not one of [16, 1,", "compile", LENET.toString(), "--dtype", "bfloat16",
            "--rounding", "stochastic", "--sr-bits", "17", "--emit", "llvm");
        assertOneLineUsageError("datatype fxp16_13 on target riscv64p: the P extension's kernels round to nearest or truncate, not --rounding up",
            "compile", LENET.toString(), "--dtype", "fxp16_13", "--rounding", "up", "--target", "riscv64p", "--emit", "llvm");
    }

    private static void assertOneLineUsageError(String expected, String... args) {
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(Main.USAGE_ERROR, run.exitCode(), String.join(" ", args) + ": " + run.err());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains(expected), run.err());
    }

    @Test
    void runRecordsTheRoundingModeAndItChangesTheResults() {
        CommandLineRun nearest = CommandLineRun.of("run", LENET.toString(), "--dtype", "custom[fp8e4m3]8");
        CommandLineRun down = CommandLineRun.of("run", LENET.toString(), "--dtype", "custom[fp8e4m3]8", "--rounding", "down");
        assertEquals(0, nearest.exitCode(), nearest.err());
        assertEquals(0, down.exitCode(), down.err());
        String nearestRow = row(nearest.out(), "custom[fp8e4m3]8"), downRow = row(down.out(), "custom[fp8e4m3]8");
        assertTrue(nearestRow.matches("custom\\[fp8e4m3]8\\s+dtype\\s+nearest\\s+-\\s.*"), nearest.out());
        assertTrue(downRow.matches("custom\\[fp8e4m3]8\\s+dtype\\s+down\\s+-\\s.*"), down.out());
        assertNotEquals(figures(nearestRow), figures(downRow), "the figures differ:\n" + nearestRow + "\n" + downRow);
    }

    /** The figures of a report table's row: what follows dtype, accumulate, rounding and overflow. */
    private static List<String> figures(String row) {
        List<String> fields = List.of(row.strip().split("\\s+"));
        return fields.subList(4, fields.size());
    }

    /** The report table's row of {@code dtype}. */
    private static String row(String out, String dtype) {
        return out.lines().filter(l -> l.startsWith(dtype + " ")).findFirst().orElse("no row for " + dtype + " in:\n" + out);
    }

    @Test
    void dtypesListsTheBlockDatatypesAndTheirSpelling() {
        CommandLineRun run = CommandLineRun.of("dtypes");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("\nmxfp8e4m3              32 x custom[fp8e4m3]8 under custom[e8m0]8, scale rule floor\n"), run.out());
        assertTrue(run.out().contains("\nnvfp4                  16 x custom[fp4e2m1]4 under custom[ue4m3]8, scale rule nearest, float32 tensor scale\n"),
            run.out());
        assertTrue(run.out().contains("RULE floor, ceil, even, rceil, midmax, nearest"), run.out());
    }

    @Test
    void dtypesSaysWhatEachAccumulationModeModelsAndWhereEachFusedPresetComesFrom() {
        CommandLineRun run = CommandLineRun.of("dtypes");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("accumulate dtype, float32, exact, fused:F=..,G=..\n"), run.out());
        assertTrue(run.out().contains("\n  int:W[:wrap|:saturate]                       a W-bit two's-complement register"), run.out());
        assertTrue(run.out().contains("\n  fused:hopper-fp8                             fused:F=13,G=32,rounding=rz: DeepSeek-V3 report 3.3.2"),
            run.out());
        assertTrue(run.out().contains("\n  fused:volta-fp16                             fused:F=23,G=4,rounding=rz: Fasi, Higham, Mikaitis, Pranesh 2021"),
            run.out());
    }

    @Test
    void aBlockDatatypeRunsTheModelsDotProductsWithTheRestInTheVectorDatatype() {
        CommandLineRun run = CommandLineRun.of("run", LENET.toString(), "--dtype", "mxfp4", "--vector-dtype", "float32", "--limit", "20");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(Pattern.compile("(?m)^mxfp4 with --vector-dtype float32 +float32 ").matcher(run.out()).find(), "blocks added in float32 by default: " + run.out());
    }

    /**
     * --dtype-map puts one node's dot products in blocks, and the report's row names the rounding the mapped nodes take
     * (float32, the first datatype, takes none); --accumulate dtype adds a block --dtype's block results in the vector
     * datatype.
     */
    @Test
    void aDtypeMapEntryAndAccumulateTakeBlockDatatypes() {
        CommandLineRun mapped = CommandLineRun.of("run", LENET.toString(), "--dtype-map", "/fc1/Gemm=mxint8,/conv2/*=block[custom[fp4e2m1]4,32,e8m0,rceil]",
            "--rounding", "up", "--limit", "20");
        assertEquals(0, mapped.exitCode(), mapped.err());
        assertTrue(mapped.out().contains("\nfloat32 with --dtype-map /fc1/Gemm=mxint8,/conv2/*=block[custom[fp4e2m1]4,32,e8m0,rceil] with --vector-dtype bfloat16 "),
            mapped.out());
        assertTrue(Pattern.compile("(?m)^float32 with --dtype-map .* bfloat16 +dtype +up ").matcher(mapped.out()).find(), mapped.out());
        CommandLineRun summed = CommandLineRun.of("run", LENET.toString(), "--dtype", "mxfp4", "--accumulate", "dtype", "--limit", "20");
        assertEquals(0, summed.exitCode(), summed.err());
        assertTrue(Pattern.compile("(?m)^mxfp4 with --vector-dtype bfloat16 +dtype ").matcher(summed.out()).find(), summed.out());
        CommandLineRun exact = CommandLineRun.of("run", LENET.toString(), "--dtype", "mxfp8e5m2", "--accumulate", "exact", "--limit", "20");
        assertEquals(0, exact.exitCode(), exact.err());
        assertTrue(Pattern.compile("(?m)^mxfp8e5m2 with --vector-dtype bfloat16 +exact ").matcher(exact.out()).find(), exact.out());
    }

    @Test
    void blockDatatypesModelsCannotComputeInYetAndTheirMisusesAreOneLineUsageErrors() {
        String[][] cases = {
            {"--dtype", "bfloat16", "--vector-dtype", "float32"}, {"--dtype", "mxfp4", "--accumulate", "int:16"}, {"--dtype", "mxfp4", "--vector-dtype", "mxint8"},
            {"--dtype-map", "fc*=block[custom[posit]32,16,fxp16_12,nearest]"}, {"--dtype", "block[custom[minifloat_e5]32,32,e8m0,floor]"}};
        String[] expected = {"--vector-dtype float32 goes with a block datatype",
            "--accumulate int:16: a block datatype's dot products add their blocks' results in float32", "'mxint8' is a block datatype, which only run's and compile's --dtype take",
            "its posit elements of up to 28 significant bits times two scales of 14 fraction bits (fxp16_12) take more than a double's 53",
            "block[custom[minifloat_e5]32,32,custom[e8m0]8,floor]: its element custom[minifloat_e5]32 has values neither float32 nor integers of at most 31 bits"};
        for (int i = 0; i < cases.length; i++) {
            String[] args = new String[cases[i].length + 2];
            args[0] = "run";
            args[1] = LENET.toString();
            System.arraycopy(cases[i], 0, args, 2, cases[i].length);
            assertOneLineUsageError(expected[i], args);
        }
    }

    /**
     * Formats that were usage errors run: wide elements and E8M0 under a tensor scale (which divides by at most 2^48),
     * and element quotients no double holds exactly (fxp32_16 under UE4M3 rounded stochastically with 16 random bits,
     * fxp16_12 under a tensor scale), which the run-time quantizer rounds to odd, and posit32 under UE4M3 scales, whose
     * products times the scales take two doubles; their bits are BlockDotsTest's, WideBlockElementsTest's and
     * TwoPartProductsTest's.
     */
    @Test
    void wideElementsAndTensorScalesThatWereRefusedRunTheModel() {
        String[][] cases = {{"--dtype", "block[custom[fp8e4m3]8,32,e8m0,floor,tensor]"}, {"--dtype-map", "fc*=block[bfloat16,16,ue4m3,nearest,tensor]"},
            {"--dtype", "block[fxp16_12,32,ue4m3,floor,tensor]", "--rounding", "stochastic"}, {"--dtype", "block[fxp32_16,16,ue4m3,nearest]", "--rounding", "stochastic"},
            {"--dtype", "block[custom[posit]32,16,ue4m3,nearest,tensor]"}};
        for (String[] options : cases) {
            String[] args = new String[options.length + 4];
            System.arraycopy(new String[] {"run", LENET.toString(), "--limit", "10"}, 0, args, 0, 4);
            System.arraycopy(options, 0, args, 4, options.length);
            CommandLineRun run = CommandLineRun.of(args);
            assertEquals(0, run.exitCode(), String.join(" ", options) + ": " + run.err());
            assertTrue(Pattern.compile("(?m)^.*" + Pattern.quote(options[1]) + " .* +\\d+\\.\\d\\d% ").matcher(run.out()).find(), run.out());
        }
    }

    @Test
    void anUnknownDatatypeIsAUsageErrorListingTheRegisteredOnes() {
        CommandLineRun run = CommandLineRun.of("run", LENET.toString(), "--dtype", "custom[lns]16");
        assertEquals(Main.USAGE_ERROR, run.exitCode());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains("unknown datatype 'custom[lns]16'; registered: float32 (32), posit (2..32)"), run.err());
    }

    @Test
    void aMalformedNameAWrongWidthAndAnUnknownModeAreUsageErrors() {
        CommandLineRun malformed = CommandLineRun.of("compile", LENET.toString(), "--dtype", "posit16", "--emit", "llvm");
        assertEquals(Main.USAGE_ERROR, malformed.exitCode());
        assertTrue(malformed.err().contains("malformed datatype 'posit16'"), malformed.err());
        CommandLineRun width = CommandLineRun.of("compile", LENET.toString(), "--dtype", "fxp12_4", "--emit", "llvm");
        assertEquals(Main.USAGE_ERROR, width.exitCode());
        assertTrue(width.err().contains("supports widths 8, 16, 32, not 12"), width.err());
        CommandLineRun mode = CommandLineRun.of("compile", LENET.toString(), "--dtype", "bfloat16", "--accumulate", "quire", "--emit", "llvm");
        assertEquals(Main.USAGE_ERROR, mode.exitCode());
        assertTrue(mode.err().contains("quire"), mode.err());
        CommandLineRun integer = CommandLineRun.of("compile", LENET.toString(), "--dtype", "bfloat16", "--accumulate", "int:32", "--emit", "llvm");
        assertEquals(Main.USAGE_ERROR, integer.exitCode());
        assertEquals("byodt: datatype bfloat16 does not support --accumulate int:32:wrap (it supports [dtype, float32, exact, fused:F=..,G=..])",
            integer.err().strip());
        CommandLineRun map = CommandLineRun.of("compile", LENET.toString(), "--dtype-map", "conv1", "--emit", "llvm");
        assertEquals(Main.USAGE_ERROR, map.exitCode());
        assertTrue(map.err().contains("--dtype-map entry 'conv1': expected PATTERN=DTYPE"), map.err());
    }
}
