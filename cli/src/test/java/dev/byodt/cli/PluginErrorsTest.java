package dev.byodt.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every way a user's plug-in or descriptor can be wrong, from the command line: one line naming the jar and
 * the class, or the descriptor and the key, exit code 1. And the user's plug-in folder, loaded without options.
 */
class PluginErrorsTest {
    private static final String LENET = Path.of(System.getProperty("byodt.modelsDir", "../models"), "lenet5-fashion.onnx").toString();
    private static final Path LNS16 = PluginJars.EXAMPLES.resolve("lns16");

    @TempDir
    Path dir;

    private static String failure(String... args) {
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(Main.MODEL_ERROR, run.exitCode(), run.out() + run.err());
        assertTrue(run.oneLineError(), run.err());
        return run.err().strip();
    }

    private Path pluginJar(String className, String body) throws IOException {
        Path source = PluginJars.source(Files.createTempDirectory(dir, "src"), className, body);
        return PluginJars.build(dir.resolve(className + ".jar"), List.of(source),
            Map.of(PluginJars.SERVICE_FILE, (className + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aJarThatIsMissingIsNotAJarOrDeclaresNoPlugin() throws IOException {
        Path missing = dir.resolve("nothing.jar");
        assertEquals("byodt: plug-in jar " + missing + ": no such file", failure("dtypes", "--plugin", missing.toString()));
        Path text = Files.writeString(dir.resolve("text.jar"), "not a zip");
        assertTrue(failure("dtypes", "--plugin", text.toString()).startsWith("byodt: plug-in jar " + text + " is not a jar ("));
        Path empty = PluginJars.build(dir.resolve("empty.jar"), List.of(), Map.of("README", new byte[] {'x'}));
        assertEquals("byodt: plug-in jar " + empty + " has no datatype plug-in: list the class implementing "
            + "dev.byodt.compiler.dtype.DatatypePlugin in its META-INF/services/dev.byodt.compiler.dtype.DatatypePlugin",
            failure("run", LENET, "--plugin", empty.toString(), "--limit", "1"));
    }

    @Test
    void aPluginClassThatIsMissingIsNoPluginOrCannotBeCreated() throws IOException {
        Path ghost = PluginJars.build(dir.resolve("ghost.jar"), List.of(),
            Map.of(PluginJars.SERVICE_FILE, "com.example.Ghost\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("byodt: plug-in jar " + ghost + ": com.example.Ghost: no such class in the jar or byodt",
            failure("dtypes", "--plugin", ghost.toString()));
        Path notAPlugin = pluginJar("NotAPlugin", "public class NotAPlugin {}");
        assertEquals("byodt: plug-in jar " + notAPlugin + ": NotAPlugin: does not implement dev.byodt.compiler.dtype.DatatypePlugin",
            failure("dtypes", "--plugin", notAPlugin.toString()));
        Path throwing = pluginJar("Throwing", """
            public class Throwing implements dev.byodt.compiler.dtype.DatatypePlugin {
                public Throwing() { throw new IllegalStateException("no licence"); }
                public void registerWith(dev.byodt.compiler.dtype.DatatypeRegistry r) {}
            }""");
        assertEquals("byodt: plug-in jar " + throwing + ": Throwing: cannot be created: java.lang.IllegalStateException: no licence", failure("dtypes", "--plugin", throwing.toString()));
    }

    @Test
    void aPluginThatFailsToRegisterOrClashes() throws IOException {
        Path failing = pluginJar("Failing", """
            public class Failing implements dev.byodt.compiler.dtype.DatatypePlugin {
                public void registerWith(dev.byodt.compiler.dtype.DatatypeRegistry r) { throw new UnsupportedOperationException("not yet"); }
            }""");
        assertEquals("byodt: plug-in jar " + failing + ": Failing.registerWith failed: java.lang.UnsupportedOperationException: not yet",
            failure("compile", LENET, "--plugin", failing.toString(), "--emit", "llvm"));
        Path clashing = pluginJar("Clashing", """
            public class Clashing implements dev.byodt.compiler.dtype.DatatypePlugin {
                public void registerWith(dev.byodt.compiler.dtype.DatatypeRegistry r) {
                    r.register(dev.byodt.compiler.dtype.DatatypeDefinition.register("lns", 131).widths(16).build());
                }
            }""");
        assertEquals("byodt: plug-in jar " + clashing + ": Clashing.registerWith failed: datatype lns: type code 131 is already registered to posit",
            failure("dtypes", "--plugin", clashing.toString()));
    }

    @Test
    void theSameDatatypeFromAJarAndADescriptorClashes() throws IOException {
        Path jar = PluginJars.lns16(dir);
        String descriptor = LNS16.resolve("lns16.yaml").toString();
        assertEquals("byodt: " + descriptor + ": code: datatype lns: type code 160 is already registered to lns (from " + jar + ")",
            failure("dtypes", "--plugin", jar.toString(), "--datatype", descriptor));
    }

    @Test
    void descriptorMistakesNameTheFileAndTheKey() throws IOException {
        Path yaml = copyOfLns16("lns16.yaml", text -> text.replace("prefix:", "prefx:"));
        assertTrue(failure("dtypes", "--datatype", yaml.toString()).startsWith("byodt: " + yaml + ": prefx: unknown key"));
        Path missing = dir.resolve("absent.yaml");
        assertEquals("byodt: datatype descriptor " + missing + ": no such file", failure("dtypes", "--datatype", missing.toString()));
        Path lacking = copyOfLns16("lacking.yaml", text -> text.replace("ops: [add,", "functions: {add: lns16_plus}\nops: ["));
        assertEquals("byodt: the datatype library " + dir.resolve("lns16.c") + " (-DBYODT_PREFIX=lns16 -DBYODT_BITS=16) of " + lacking
            + " defines no function lns16_plus (add of custom[lns]16)",
            failure("compile", LENET, "--datatype", lacking.toString(), "--dtype", "custom[lns]16", "--emit", "llvm", "-o", dir.resolve("x.ll").toString()));
    }

    @Test
    void missingOperationsAreListedOrComputedInFloat32() throws IOException {
        Path noTanh = copyOfLns16("lns16.yaml", text -> text.replace("tanh, ", ""));
        String[] command = {"run", LENET, "--datatype", noTanh.toString(), "--dtype", "custom[lns]16", "--limit", "50"};
        CommandLineRun gap = CommandLineRun.of(command);
        assertEquals(Main.MODEL_ERROR, gap.exitCode());
        assertTrue(gap.err().startsWith("byodt: custom[lns]16 has no lowering for: tanh (used by Tanh '"), gap.err());
        assertTrue(gap.err().strip().endsWith("(register them, or compute them in float32 with --fallback float32)"), gap.err());
        CommandLineRun fallback = CommandLineRun.of(List.of(command, new String[] {"--fallback", "float32"}).stream()
            .flatMap(java.util.Arrays::stream).toArray(String[]::new));
        assertEquals(0, fallback.exitCode(), fallback.err());
        assertTrue(fallback.err().contains("byodt: computed in float32 for want of a lowering: custom[lns]16: tanh (used by Tanh '"), fallback.err());
    }

    @Test
    void theUsersPluginFolderIsLoadedWithoutOptions() throws IOException, InterruptedException {
        Path folder = Files.createDirectories(dir.resolve("config/byodt/plugins"));
        Files.copy(LNS16.resolve("lns16.yaml"), folder.resolve("lns16.yaml"));
        Files.copy(LNS16.resolve("lns16.c"), folder.resolve("lns16.c"));
        ProcessBuilder byodt = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
            "-cp", System.getProperty("java.class.path"), Main.class.getName(), "dtypes");
        byodt.environment().put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        byodt.redirectErrorStream(true);
        Process process = byodt.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), out);
        assertTrue(out.contains("\nlns                    code 160") && out.contains("    from " + folder.resolve("lns16.yaml") + "\n"), out);
    }

    /** lns16.yaml and lns16.c copied into the test folder, the descriptor changed by {@code edit}. */
    private Path copyOfLns16(String name, java.util.function.UnaryOperator<String> edit) throws IOException {
        Files.copy(LNS16.resolve("lns16.c"), dir.resolve("lns16.c"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return Files.writeString(dir.resolve(name), edit.apply(Files.readString(LNS16.resolve("lns16.yaml"))));
    }
}
