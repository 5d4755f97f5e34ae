package dev.byodt.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The block datatype of docs/bring-your-own-datatype.md ("A block datatype over your element"): mxint6 over the int6
 * example, declared by its descriptor and by its plug-in jar (built here as the page builds it), named after
 * --dtype, --dtype-map and sweep's --dtypes as the built-in mxint8 is, and listed by dtypes.
 */
class BlockPluginTest {
    private static final String LENET = Path.of(System.getProperty("byodt.modelsDir", "../models")).resolve("lenet5-fashion.onnx").toString();
    private static final String DESCRIPTOR = PluginJars.EXAMPLES.resolve("int6/int6.yaml").toString();
    /** A row of run's comparison table, from its dtype column to its SQNR. */
    private static final Pattern ROW = Pattern.compile("(?m)^(mxint6 with --vector-dtype bfloat16 .*)$");

    @TempDir
    static Path dir;
    private static Path jar;

    @BeforeAll
    static void buildThePluginJar() throws IOException {
        jar = PluginJars.int6(dir);
    }

    @Test
    void dtypesListsTheDeclaredBlockDatatype() {
        CommandLineRun run = CommandLineRun.of("dtypes", "--datatype", DESCRIPTOR);
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("\nmxint6                 32 x custom[int6]6 under custom[e8m0]8, scale rule floor\n    from " + DESCRIPTOR + "\n"), run.out());
    }

    /** The descriptor's mxint6 and the jar's give LeNet-5 the same figures, and the general spelling of the format too. */
    @Test
    void leNetRunsInTheBlockDatatypeByNameFromTheDescriptorAndTheJar() {
        String fromDescriptor = row(CommandLineRun.of("run", LENET, "--datatype", DESCRIPTOR, "--dtype", "mxint6", "--limit", "100"));
        String fromJar = row(CommandLineRun.of("run", LENET, "--plugin", jar.toString(), "--dtype", "mxint6", "--limit", "100"));
        assertEquals(fromDescriptor, fromJar);
        CommandLineRun spelled = CommandLineRun.of("run", LENET, "--datatype", DESCRIPTOR, "--dtype", "block[custom[int6]6,32,e8m0,floor]", "--limit", "100");
        assertEquals(0, spelled.exitCode(), spelled.err());
        assertTrue(spelled.out().contains(fromDescriptor.replace("mxint6", "block[custom[int6]6,32,e8m0,floor]")), spelled.out() + "\nnot\n" + fromDescriptor);
        Matcher top1 = Pattern.compile(" ([0-9.]+)% ").matcher(fromDescriptor);
        assertTrue(top1.find() && Double.parseDouble(top1.group(1)) > 50, "6-bit elements in blocks still classify: " + fromDescriptor);
    }

    @Test
    void aDtypeMapEntryAndASweepTakeTheName() throws IOException {
        CommandLineRun mapped = CommandLineRun.of("run", LENET, "--datatype", DESCRIPTOR, "--dtype-map", "/fc1/Gemm=mxint6", "--limit", "20");
        assertEquals(0, mapped.exitCode(), mapped.err());
        assertTrue(mapped.out().contains("\nfloat32 with --dtype-map /fc1/Gemm=mxint6 with --vector-dtype bfloat16 "), mapped.out());
        Path out = dir.resolve("sweep");
        CommandLineRun sweep = CommandLineRun.of("sweep", LENET, "--plugin", jar.toString(), "--dtypes", "mxint6,mxint8", "--limit", "12",
            "--out", out.toString(), "--gate", "mxint6", "--min-accuracy", "0");
        assertEquals(0, sweep.exitCode(), sweep.err());
        List<String> rows = Files.readAllLines(out.resolve("results.csv"));
        assertEquals(List.of("mxint6", "mxint8"), rows.stream().skip(1).map(r -> r.split(",")[1]).toList());
    }

    private static String row(CommandLineRun run) {
        assertEquals(0, run.exitCode(), run.err());
        Matcher m = ROW.matcher(run.out());
        assertTrue(m.find(), run.out());
        return m.group(1);
    }
}
