package dev.byodt.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A user's datatype whose C code crashes or hangs, or whose plug-in registration never returns, ends in one
 * line naming the datatype, the signal or the time limit, and where it happened; byodt's own process carries
 * on, and nothing is left on disk. Each case runs the real command, whose child process really crashes.
 */
@Isolated("it checks that runs leave no byodt-isolated- folder in java.io.tmpdir, where other classes' runs make theirs")
class UserCodeIsolationTest {
    private static final String LENET = Path.of(System.getProperty("byodt.modelsDir", "../models"), "lenet5-fashion.onnx").toString();
    private static final Path LNS16_C = PluginJars.EXAMPLES.resolve("lns16/lns16.c").toAbsolutePath().normalize();
    private static final String OPS = "[add, sub, mul, div, neg, abs, min, max, pow, sqrt, exp, log, tanh, sigmoid, erf, "
        + "lt, le, gt, ge, eq, ne, from_f32, to_f32, from_i32, to_i32, from_f64, lowest]";

    @TempDir
    Path dir;

    /**
     * A descriptor for "broken": lns16's functions, but operation {@code op} computed by {@code function}, a C
     * function defined by {@code definition} (after lns16.c, so it may call lns16's functions).
     */
    private Path brokenDatatype(String op, String function, String definition) throws IOException {
        Files.writeString(dir.resolve("broken.c"), "#include \"" + LNS16_C + "\"\n\n" + definition + "\n");
        return Files.writeString(dir.resolve("broken.yaml"), """
            name: broken
            code: 201
            widths: [16]
            library: broken.c
            prefix: lns16
            ops: %s
            functions: {%s: %s}
            accumulation: [float32]
            """.formatted(OPS, op, function));
    }

    private static CommandLineRun failure(String... args) {
        Set<String> before = temporaryFolders();
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(Main.MODEL_ERROR, run.exitCode(), run.out() + run.err());
        assertTrue(run.oneLineError(), run.err());
        assertFalse(run.out().contains("fatal error"), run.out());
        assertEquals(before, temporaryFolders(), "a temporary folder was left behind");
        return run;
    }

    private static Set<String> temporaryFolders() {
        try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("byodt-isolated-")).collect(Collectors.toSet());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aNullDereferenceInTheModelNamesTheSignalAndTheFunction() throws IOException {
        Path yaml = brokenDatatype("tanh", "broken_tanh", "uint16_t broken_tanh(uint16_t x) { return *(volatile uint16_t *) 0; }");
        String err = failure("run", LENET, "--datatype", yaml.toString(), "--dtype", "custom[broken]16", "--limit", "2").err().strip();
        assertEquals("byodt: datatype custom[broken]16 (from " + yaml + ") crashed the process running it with "
            + "SIGSEGV (an invalid memory access) in broken_tanh while running the model; byodt itself stopped cleanly", err);
    }

    @Test
    void aDivisionByZeroInAnInlinedFunctionNamesTheNodeAndEndlessRecursionIsCaught() throws IOException {
        Path yaml = brokenDatatype("tanh", "broken_tanh",
            "__attribute__((always_inline)) uint16_t broken_tanh(uint16_t x) { volatile int zero = 0; return (uint16_t) (x / zero); }");
        String err = failure("run", LENET, "--datatype", yaml.toString(), "--dtype", "custom[broken]16", "--limit", "1").err();
        // Inlined, the function has no code of its own: the kernel it was inlined into names the node.
        assertTrue(err.contains("with SIGFPE (an arithmetic fault such as a division by zero) in node '"), err);
        assertTrue(err.contains("' (Tanh) while running the model"), err);

        yaml = brokenDatatype("tanh", "broken_tanh",
            "uint16_t broken_tanh(uint16_t x) { volatile uint16_t deeper = broken_tanh(x + 1); return deeper + 1; }");
        err = failure("run", LENET, "--datatype", yaml.toString(), "--dtype", "custom[broken]16", "--limit", "1").err();
        assertTrue(err.contains("crashed the process running it with SIGSEGV"), err);
    }

    @Test
    void aConversionThatNeverReturnsIsStoppedAtTheTimeLimitAndNoOutputIsWritten() throws IOException {
        Path yaml = brokenDatatype("from_f64", "broken_from_f64",
            "uint16_t broken_from_f64(double v) { for (volatile int i = 0; ; i++) {} }");
        Path object = dir.resolve("model.o");
        String err = failure("compile", LENET, "--datatype", yaml.toString(), "--dtype", "custom[broken]16", "--emit", "obj",
            "-o", object.toString(), "--time-limit", "3").err().strip();
        assertTrue(err.startsWith("byodt: datatype custom[broken]16 (from " + yaml + "): converting "), err);
        assertTrue(err.endsWith(" with broken_from_f64 ran past the time limit of 3 s and was stopped (--time-limit SECONDS)"), err);
        assertFalse(Files.exists(object), "a partial object file was written");
        assertFalse(Files.exists(dir.resolve("model.h")), "a header was written");
    }

    @Test
    void aPluginWhoseRegistrationNeverReturnsIsStopped() throws IOException {
        Path source = PluginJars.source(Files.createTempDirectory(dir, "src"), "Spinning", """
            public class Spinning implements dev.byodt.compiler.dtype.DatatypePlugin {
                public void registerWith(dev.byodt.compiler.dtype.DatatypeRegistry r) { while (true) Thread.onSpinWait(); }
            }""");
        Path jar = PluginJars.build(dir.resolve("spinning.jar"), List.of(source),
            Map.of(PluginJars.SERVICE_FILE, "Spinning\n".getBytes(StandardCharsets.UTF_8)));
        String err = failure("dtypes", "--plugin", jar.toString(), "--time-limit", "5").err().strip();
        assertEquals("byodt: datatype of plug-in jar " + jar + ": registering the datatypes of plug-in jar " + jar
            + " (Spinning.registerWith) ran past the time limit of 5 s and was stopped (--time-limit SECONDS)", err);
    }

    @Test
    void aWellBehavedDatatypePrintsTheSameApartAsTrustedInProcess() throws IOException {
        Path yaml = brokenDatatype("tanh", "lns16_tanh", "");
        String[] command = {"run", LENET, "--datatype", yaml.toString(), "--dtype", "custom[broken]16", "--limit", "20"};
        CommandLineRun apart = CommandLineRun.of(command);
        CommandLineRun trusted = CommandLineRun.of(Stream.concat(Stream.of(command), Stream.of("--trust-plugins")).toArray(String[]::new));
        assertEquals(0, apart.exitCode(), apart.err());
        assertEquals(0, trusted.exitCode(), trusted.err());
        assertEquals(withoutTimes(trusted.out()), withoutTimes(apart.out()));
    }

    /** The lines of a run's report but its timings, which differ from run to run. */
    private static String withoutTimes(String report) {
        return report.lines().filter(line -> !line.startsWith("time")).collect(Collectors.joining("\n"));
    }
}
