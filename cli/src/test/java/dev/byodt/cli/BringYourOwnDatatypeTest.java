package dev.byodt.cli;

import com.google.gson.JsonParser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The walk-through of docs/bring-your-own-datatype.md, command by command: the lns16 example as a descriptor
 * and as a plug-in jar, listed, run on LeNet-5, compiled to LLVM with its library calls and vectorized.
 */
class BringYourOwnDatatypeTest {
    private static final Path MODELS = Path.of(System.getProperty("byodt.modelsDir", "../models"));
    private static final String LENET = MODELS.resolve("lenet5-fashion.onnx").toString();
    private static final String DESCRIPTOR = PluginJars.EXAMPLES.resolve("lns16/lns16.yaml").toString();
    private static final Pattern TOP1 = Pattern.compile("top-1\\s+([0-9.]+)% \\((\\d+)/(\\d+)\\)");

    @TempDir
    static Path dir;
    private static Path jar;

    @BeforeAll
    static void buildThePluginJar() throws IOException {
        jar = PluginJars.lns16(dir);
    }

    @Test
    void dtypesListsTheDescriptorsDatatypeWithEveryOperation() {
        CommandLineRun run = CommandLineRun.of("dtypes", "--datatype", DESCRIPTOR);
        assertEquals(0, run.exitCode(), run.err());
        String lns = run.out().substring(run.out().indexOf("\nlns ") + 1);
        assertTrue(lns.startsWith("lns                    code 160  widths 16          accumulate dtype, float32"), run.out());
        assertTrue(lns.contains("    from " + DESCRIPTOR + "\n"), lns);
        assertTrue(lns.contains("    missing none"), lns);
    }

    @Test
    void dtypesListsThePluginJarAndAFolderOfJars() {
        for (String plugin : List.of(jar.toString(), dir.toString())) {
            CommandLineRun run = CommandLineRun.of("dtypes", "--plugin", plugin);
            assertEquals(0, run.exitCode(), run.err());
            assertTrue(run.out().contains("\nlns                    code 160"), run.out());
            assertTrue(run.out().contains("    library lns16/lns16.c\n    from " + jar + "\n"), run.out());
        }
    }

    @Test
    void leNetInLns16IsAboutAsAccurateAsInFloat32() throws IOException {
        double float32 = JsonParser.parseString(Files.readString(MODELS.resolve("lenet5-fashion.json")))
            .getAsJsonObject().get("float32_sample_accuracy").getAsDouble() * 100;
        CommandLineRun run = CommandLineRun.of("run", LENET, "--datatype", DESCRIPTOR, "--dtype", "custom[lns]16");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("dtype     custom[lns]16"), run.out());
        double lns16 = accuracy(run);
        // 10 fraction bits of log2 resolve values to 0.07%, finer than float16's 0.1%: LeNet-5 should not notice.
        assertTrue(Math.abs(lns16 - float32) <= 1.5, "LNS16 " + lns16 + "% against float32 " + float32 + "%");
    }

    @Test
    void thePluginJarRunsLeNetWithEitherAccumulation() {
        for (String mode : List.of("dtype", "float32")) {
            CommandLineRun run = CommandLineRun.of("run", LENET, "--plugin", jar.toString(), "--dtype", "custom[lns]16",
                "--accumulate", mode, "--limit", "200");
            assertEquals(0, run.exitCode(), run.err());
            assertTrue(accuracy(run) > 80, run.out());
        }
    }

    @Test
    void theEmittedLlvmShowsTheCallsAndTheOptimizedCodeVectorizes() throws IOException {
        Path calls = dir.resolve("lenet5-lns16.ll"), inlined = dir.resolve("lenet5-lns16-inlined.ll");
        CommandLineRun run = CommandLineRun.of("compile", LENET, "--datatype", DESCRIPTOR, "--dtype", "custom[lns]16",
            "--emit", "llvm", "--no-inline-lib", "-o", calls.toString());
        assertEquals(0, run.exitCode(), run.err());
        String withCalls = Files.readString(calls, StandardCharsets.UTF_8);
        for (String op : List.of("add", "mul", "div", "tanh", "from_f32")) {
            assertTrue(Pattern.compile("call (fastcc )?i16 @lns16_" + op + "\\(").matcher(withCalls).find(), "no call of lns16_" + op);
        }
        run = CommandLineRun.of("compile", LENET, "--datatype", DESCRIPTOR, "--dtype", "custom[lns]16", "--emit", "llvm", "-o", inlined.toString());
        assertEquals(0, run.exitCode(), run.err());
        String optimized = Files.readString(inlined, StandardCharsets.UTF_8);
        assertFalse(optimized.contains("call fastcc i16 @lns16_add("), "lns16_add inlined");
        // The Gaussian logarithm of the sums, in double, over 16 or 32 lanes at once.
        assertTrue(Pattern.compile("fmul <(16|32) x double>").matcher(optimized).find(), "vectorized double arithmetic");
        assertTrue(optimized.contains("x i16>"), "vectors of lns16 values");
    }

    private static double accuracy(CommandLineRun run) {
        Matcher m = TOP1.matcher(run.out());
        assertTrue(m.find(), run.out());
        return Double.parseDouble(m.group(1));
    }
}
