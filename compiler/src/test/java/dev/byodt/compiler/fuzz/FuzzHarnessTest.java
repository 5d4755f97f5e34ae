package dev.byodt.compiler.fuzz;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The fuzzing harnesses of the readers of untrusted input, under Jazzer (libFuzzer for the JVM).
 *
 * <p>First every file kept in {@code src/test/resources/fuzz/HARNESS/} runs through its harness: the seeds,
 * and every input a fuzzing run ever found to crash byodt, kept as a regression case once fixed. Then
 * Jazzer fuzzes each harness in a process of its own for {@code byodt.fuzzSeconds} seconds (a few in the
 * default test run); {@code mvn test -pl compiler -am -Pfuzz} fuzzes for long, seeded also from every ONNX
 * node test. A finding (an exception other than byodt's one-line ByodtException, an OutOfMemoryError, a
 * StackOverflowError, or an input that takes more than 120 s: a hang) fails the test and is written to
 * {@code target/fuzz/HARNESS/findings/}.
 */
@Tag("fuzz")
class FuzzHarnessTest {
    private static final long SECONDS = Long.getLong("byodt.fuzzSeconds", 3);
    private static final boolean NODE_TEST_SEEDS = Boolean.getBoolean("byodt.fuzzNodeTestSeeds");
    private static final Path MODELS = Path.of(System.getProperty("byodt.modelsDir", "../models"));
    private static final Path NODE_TESTS = Path.of(System.getProperty("byodt.onnxNodeDir", "../../shared/onnx-node"));
    private static final Pattern EXECUTED = Pattern.compile("stat::number_of_executed_units:\\s*(\\d+)");

    @ParameterizedTest
    @ValueSource(classes = {OnnxLoaderFuzzer.class, DescriptorFuzzer.class, DataReaderFuzzer.class})
    void keptInputsAreAnsweredWithoutACrash(Class<?> harness) throws Throwable {
        MethodHandle target = MethodHandles.publicLookup().findStatic(harness, "fuzzerTestOneInput",
            MethodType.methodType(void.class, byte[].class));
        List<Path> kept = files(kept(harness));
        assertTrue(!kept.isEmpty(), "no seeds for " + harness.getSimpleName());
        for (Path input : kept) {
            try {
                target.invokeExact(Files.readAllBytes(input));
            } catch (Throwable crash) {
                throw new AssertionError(harness.getSimpleName() + " crashes on " + input.getFileName() + ": " + crash, crash);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(classes = {OnnxLoaderFuzzer.class, DescriptorFuzzer.class, DataReaderFuzzer.class})
    void boundedFuzzingRunFindsNothing(Class<?> harness) throws IOException, InterruptedException, URISyntaxException {
        String name = harness.getSimpleName();
        Path work = Path.of("target", "fuzz", name);
        Path corpus = Files.createDirectories(work.resolve("corpus"));
        Path findings = Files.createDirectories(work.resolve("findings"));
        Path log = work.resolve("jazzer.log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xss8m", "-XX:+UseSerialGC",
            "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
            "com.code_intelligence.jazzer.Jazzer", "--target_class=" + harness.getName(),
            "--instrumentation_includes=" + instrumented(harness),
            "-max_total_time=" + SECONDS, "-max_len=16384", "-timeout=120", "-print_final_stats=1",
            "-artifact_prefix=" + findings.toAbsolutePath() + "/", corpus.toString(), kept(harness).toString()));
        for (Path seeds : seeds(harness)) command.add(seeds.toString());
        Process jazzer = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!jazzer.waitFor(SECONDS + 600, TimeUnit.SECONDS)) {
            jazzer.destroyForcibly();
            fail(name + ": Jazzer did not stop; see " + log.toAbsolutePath());
        }
        String output = Files.readString(log);
        assertEquals(0, jazzer.exitValue(), name + " found a crash (kept in " + findings.toAbsolutePath()
            + "; once fixed, keep it in src/test/resources/fuzz/" + name + "/):\n" + tail(output));
        Matcher executed = EXECUTED.matcher(output);
        assertTrue(executed.find(), "no statistics from Jazzer:\n" + tail(output));
        System.out.println(name + ": " + executed.group(1) + " inputs in " + SECONDS + " s, no finding");
    }

    /**
     * The code whose branches guide the fuzzer: the readers the harness drives and, for YAML, the parser it
     * drives them through. Instrumenting less than all of byodt and its libraries shortens each run's start.
     */
    private static String instrumented(Class<?> harness) {
        if (harness == OnnxLoaderFuzzer.class) return "dev.byodt.compiler.**:dev.byodt.runtime.**";
        if (harness == DescriptorFuzzer.class) return "dev.byodt.compiler.dtype.**:org.snakeyaml.**";
        return "dev.byodt.runtime.**";
    }

    /** The seeds and regression cases kept with the tests. */
    private static Path kept(Class<?> harness) throws URISyntaxException {
        return Path.of(FuzzHarnessTest.class.getResource("/fuzz/" + harness.getSimpleName()).toURI());
    }

    /** Seeds from outside the tests: the shipped model and data, and with -Pfuzz the ONNX node tests. */
    private static List<Path> seeds(Class<?> harness) {
        List<Path> seeds = new ArrayList<>();
        if (harness == OnnxLoaderFuzzer.class) seeds.add(MODELS);
        if (harness == DataReaderFuzzer.class) seeds.add(MODELS.resolve("fashion-mnist-sample"));
        if (NODE_TEST_SEEDS && harness != DescriptorFuzzer.class && Files.isDirectory(NODE_TESTS)) seeds.add(NODE_TESTS);
        return seeds;
    }

    private static List<Path> files(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private static String tail(String output) {
        List<String> lines = output.lines().filter(l -> !l.startsWith("INFO: Instrumented")).toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
}
