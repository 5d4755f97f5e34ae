package dev.byodt.compiler.dtype.plugin;

import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.runtime.ByodtException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The datatypes a command works with: byodt's own, then those of the user's plug-in folder
 * ($XDG_CONFIG_HOME/byodt/plugins or ~/.config/byodt/plugins: jars and .yaml descriptors, in name order),
 * then those the command line names (--plugin: a jar or a folder like the plug-in folder; --datatype: a
 * descriptor). A file reached twice is loaded once.
 */
public final class UserDatatypes {
    private final DatatypeRegistry registry;
    private final Set<Path> loaded = new HashSet<>();

    private UserDatatypes(DatatypeRegistry registry) {
        this.registry = registry;
    }

    /** The registry with everything above; byodt's shared built-in registry when the user adds nothing. */
    public static DatatypeRegistry registry(Path pluginFolder, List<Path> plugins, List<Path> descriptors) {
        boolean folderHasSome = !contents(pluginFolder).isEmpty();
        if (!folderHasSome && plugins.isEmpty() && descriptors.isEmpty()) return DatatypeChoice.builtInRegistry();
        UserDatatypes user = new UserDatatypes(DatatypeRegistry.withBuiltIns());
        user.loadFolder(pluginFolder);
        for (Path plugin : plugins) {
            if (Files.isDirectory(plugin)) user.loadFolder(plugin);
            else user.loadJar(plugin);
        }
        for (Path descriptor : descriptors) user.loadDescriptor(descriptor);
        return user.registry;
    }

    /** The plug-in jars {@link #registry} would load: Java code of the user's, run when it registers. */
    public static List<Path> jars(Path pluginFolder, List<Path> plugins) {
        List<Path> jars = new ArrayList<>(contents(pluginFolder).stream().filter(UserDatatypes::isJar).toList());
        for (Path plugin : plugins) {
            if (Files.isDirectory(plugin)) jars.addAll(contents(plugin).stream().filter(UserDatatypes::isJar).toList());
            else jars.add(plugin);
        }
        return jars;
    }

    /** $XDG_CONFIG_HOME/byodt/plugins, or ~/.config/byodt/plugins without XDG_CONFIG_HOME. */
    public static Path defaultPluginFolder() { return pluginFolder(System.getenv(), System.getProperty("user.home")); }

    static Path pluginFolder(Map<String, String> environment, String home) {
        String xdg = environment.get("XDG_CONFIG_HOME");
        Path config = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(home, ".config");
        return config.resolve("byodt").resolve("plugins");
    }

    private void loadFolder(Path folder) {
        for (Path p : contents(folder)) {
            if (isDescriptor(p)) loadDescriptor(p);
            else loadJar(p);
        }
    }

    private void loadJar(Path jar) {
        if (firstTime(jar)) PluginJar.load(jar, registry);
    }

    private void loadDescriptor(Path descriptor) {
        if (firstTime(descriptor)) DatatypeDescriptor.register(descriptor, registry);
    }

    private boolean firstTime(Path p) {
        Path key;
        try {
            key = p.toRealPath();
        } catch (IOException e) {
            return true;  // a missing file: loading it reports that
        }
        return loaded.add(key);
    }

    /** The jars and descriptors in {@code folder}, by name; none when there is no such folder. */
    private static List<Path> contents(Path folder) {
        if (folder == null || !Files.isDirectory(folder)) return List.of();
        try (Stream<Path> entries = Files.list(folder)) {
            return new ArrayList<>(entries.filter(p -> Files.isRegularFile(p) && (isJar(p) || isDescriptor(p))).sorted().toList());
        } catch (IOException e) {
            throw new ByodtException("cannot list the plug-in folder " + folder + ": " + e.getMessage());
        }
    }

    private static boolean isJar(Path p) { return p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jar"); }

    private static boolean isDescriptor(Path p) {
        String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".yaml") || name.endsWith(".yml");
    }
}
