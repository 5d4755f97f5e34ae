package dev.byodt.cli;

import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.runtime.ByodtException;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Builds plug-in jars for tests as examples/lns16-plugin/build.sh does: javac against byodt's classes, then
 * the classes, the service file and resources into a jar.
 */
final class PluginJars {
    static final Path EXAMPLES = Path.of(System.getProperty("byodt.modelsDir", "../models")).getParent().resolve("examples");
    static final String SERVICE_FILE = "META-INF/services/" + DatatypePlugin.class.getName();

    private PluginJars() {}

    /** lns16-plugin.jar from examples/lns16-plugin and examples/lns16/lns16.c. */
    static Path lns16(Path dir) throws IOException {
        Path plugin = EXAMPLES.resolve("lns16-plugin/src/main");
        Map<String, byte[]> resources = new LinkedHashMap<>();
        resources.put(SERVICE_FILE, Files.readAllBytes(plugin.resolve("resources").resolve(SERVICE_FILE)));
        resources.put("lns16/lns16.c", Files.readAllBytes(EXAMPLES.resolve("lns16/lns16.c")));
        return build(dir.resolve("lns16-plugin.jar"), List.of(plugin.resolve("java/dev/byodt/examples/lns16/Lns16Plugin.java")), resources);
    }

    /** int6-plugin.jar from examples/int6: Int6Plugin.java, its service file and int6.c, as docs/bring-your-own-datatype.md builds it. */
    static Path int6(Path dir) throws IOException {
        Path int6 = EXAMPLES.resolve("int6");
        Map<String, byte[]> resources = new LinkedHashMap<>();
        resources.put(SERVICE_FILE, "dev.byodt.examples.int6.Int6Plugin\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        resources.put("int6/int6.c", Files.readAllBytes(int6.resolve("int6.c")));
        return build(dir.resolve("int6-plugin.jar"), List.of(int6.resolve("Int6Plugin.java")), resources);
    }

    /** A jar of {@code sources} compiled against byodt, plus {@code resources} (path in the jar -> bytes). */
    static Path build(Path jar, List<Path> sources, Map<String, byte[]> resources) throws IOException {
        Path classes = Files.createTempDirectory(jar.getParent(), "classes");
        if (!sources.isEmpty()) {
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-cp", byodtClassPath()));
            sources.forEach(s -> args.add(s.toString()));
            ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
            if (javac.run(null, diagnostics, diagnostics, args.toArray(String[]::new)) != 0) throw new IllegalStateException(diagnostics.toString());
        }
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) put(out, classes.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
            for (Map.Entry<String, byte[]> r : resources.entrySet()) put(out, r.getKey(), r.getValue());
        }
        return jar;
    }

    /** A source file {@code className} (in the default package) with {@code body}. */
    static Path source(Path dir, String className, String body) throws IOException {
        return Files.writeString(dir.resolve(className + ".java"), body);
    }

    private static void put(JarOutputStream jar, String name, byte[] bytes) throws IOException {
        jar.putNextEntry(new JarEntry(name));
        jar.write(bytes);
        jar.closeEntry();
    }

    /** The compiler's and runtime's class folders (or jars): what a plug-in compiles against. */
    private static String byodtClassPath() {
        return String.join(java.io.File.pathSeparator, location(DatatypePlugin.class), location(ByodtException.class));
    }

    private static String location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
