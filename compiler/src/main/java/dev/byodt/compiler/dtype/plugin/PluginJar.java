package dev.byodt.compiler.dtype.plugin;

import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.runtime.Activity;
import dev.byodt.runtime.ByodtException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;

/**
 * A user's plug-in jar: its {@link DatatypePlugin} classes, found through {@link ServiceLoader} in a class
 * loader of their own whose parent is byodt's (so they see byodt's API, and a plug-in's C library can be a
 * resource of the jar: {@code LibrarySource.resource(getClass().getClassLoader(), "lns16/lns16.c")}).
 * Each datatype the jar registers records the jar as its origin. Every way a jar can be wrong is one line
 * naming the jar and, past opening it, the class.
 */
public final class PluginJar {
    static final String SERVICE_FILE = "META-INF/services/" + DatatypePlugin.class.getName();

    private PluginJar() {}

    /** Registers the datatypes of the jar at {@code jar} with {@code registry}. */
    public static void load(Path jar, DatatypeRegistry registry) {
        List<String> declared = declaredPlugins(jar);
        // The loader stays open: the datatypes read their library from the jar when a model uses them.
        URLClassLoader loader = new URLClassLoader("byodt plug-in " + jar.getFileName(), new URL[] {url(jar)},
            DatatypePlugin.class.getClassLoader());
        Iterator<ServiceLoader.Provider<DatatypePlugin>> providers = ServiceLoader.load(DatatypePlugin.class, loader).stream().iterator();
        while (true) {
            ServiceLoader.Provider<DatatypePlugin> provider;
            DatatypePlugin plugin;
            try {
                if (!providers.hasNext()) return;
                provider = providers.next();
                // The loader also sees byodt's own plug-ins through its parent: those are registered already.
                if (provider.type().getClassLoader() != loader) continue;
                plugin = provider.get();
            } catch (ServiceConfigurationError e) {
                throw new ByodtException("plug-in jar " + jar + ": " + failedClass(e, declared) + ": " + reason(e));
            }
            try (Activity.Step step = Activity.userCode("registering the datatypes of plug-in jar " + jar + " ("
                    + provider.type().getName() + ".registerWith)")) {
                registry.registerFrom(jar.toString(), plugin);
            } catch (RuntimeException | LinkageError e) {
                throw new ByodtException("plug-in jar " + jar + ": " + provider.type().getName() + ".registerWith failed: " + oneLine(e));
            }
        }
    }

    /** The class names the jar's service file lists; a missing file, a non-jar or an empty list is an error. */
    private static List<String> declaredPlugins(Path jar) {
        if (!Files.exists(jar)) throw new ByodtException("plug-in jar " + jar + ": no such file");
        try (JarFile file = new JarFile(jar.toFile())) {
            ZipEntry entry = file.getEntry(SERVICE_FILE);
            List<String> names = new ArrayList<>();
            if (entry != null) {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(file.getInputStream(entry), StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        String name = line.replaceFirst("#.*", "").strip();
                        if (!name.isEmpty()) names.add(name);
                    }
                }
            }
            if (names.isEmpty()) {
                throw new ByodtException("plug-in jar " + jar + " has no datatype plug-in: list the class implementing "
                    + DatatypePlugin.class.getName() + " in its " + SERVICE_FILE);
            }
            return names;
        } catch (ZipException e) {
            throw new ByodtException("plug-in jar " + jar + " is not a jar (" + e.getMessage() + ")");
        } catch (IOException e) {
            throw new ByodtException("plug-in jar " + jar + ": cannot read it: " + e.getMessage());
        }
    }

    /** The declared class the error is about (ServiceLoader names it only in its message). */
    private static String failedClass(ServiceConfigurationError e, List<String> declared) {
        String message = String.valueOf(e.getMessage());
        return declared.stream().filter(message::contains).findFirst().orElse(String.join(", ", declared));
    }

    /** What went wrong, in byodt's words (ServiceLoader's messages name the service, not the problem). */
    private static String reason(ServiceConfigurationError e) {
        String message = String.valueOf(e.getMessage());
        Throwable cause = e.getCause();
        if (cause instanceof ClassNotFoundException || message.endsWith(" not found")) return "no such class in the jar or byodt";
        if (message.endsWith(" not a subtype")) return "does not implement " + DatatypePlugin.class.getName();
        if (message.contains("no-arg constructor")) return "has no public constructor without parameters";
        if (message.contains("could not be instantiated") && cause != null) {
            Throwable thrown = cause instanceof ExceptionInInitializerError && cause.getCause() != null ? cause.getCause() : cause;
            return "cannot be created: " + oneLine(thrown);
        }
        return oneLine(e);
    }

    private static String oneLine(Throwable e) {
        String text = e.getMessage() == null ? e.getClass().getName() : e instanceof ByodtException ? e.getMessage() : e.toString();
        return text.replaceAll("\\s*\\R\\s*", " ");
    }

    private static URL url(Path jar) {
        try {
            return jar.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new ByodtException("plug-in jar " + jar + ": not a valid location (" + e.getMessage() + ")");
        }
    }
}
