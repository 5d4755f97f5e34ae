package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Where a datatype's library is: a C source to compile with the bundled clang, or LLVM bitcode (.bc) or IR
 * text (.ll) to link as it is. Either classpath resources (built-in datatypes and plug-in jars) or a file.
 * A C library may be made of several resources compiled as one translation unit (the built-in libraries share
 * common/double_math.c that way instead of each carrying a copy).
 */
public sealed interface LibrarySource {
    enum Format { C, BITCODE, IR_TEXT }

    /** The name diagnostics use: the resource path or the file path. */
    String displayName();

    byte[] read();

    default Format format() {
        String name = displayName().toLowerCase(Locale.ROOT);
        if (name.endsWith(".bc")) return Format.BITCODE;
        if (name.endsWith(".ll")) return Format.IR_TEXT;
        return Format.C;
    }

    /** A resource of byodt itself. */
    static LibrarySource resource(String path) { return resources(List.of(path)); }

    /**
     * C resources of byodt itself concatenated in order into one translation unit, e.g. the shared
     * common/double_math.c then a family's own file; the last part names the library.
     */
    static LibrarySource resources(List<String> paths) { return resources(paths.getLast(), paths); }

    /** As {@link #resources(List)}, named by the part {@code name} (a family's file followed by parts of its own). */
    static LibrarySource resources(String name, List<String> paths) {
        return new Resource(paths, name, LibrarySource.class.getClassLoader());
    }

    /** A resource found by {@code loader}: a plug-in passes its own class's loader. */
    static LibrarySource resource(ClassLoader loader, String path) { return new Resource(List.of(path), path, loader); }

    static LibrarySource file(Path path) { return new File(path); }

    /** @param paths one resource, or C parts joined into one translation unit (each after a #line directive, so
     *              that clang's diagnostics name the part and its own line numbers)
     *  @param path the part that names the library */
    record Resource(List<String> paths, String path, ClassLoader loader) implements LibrarySource {
        public Resource {
            if (!paths.contains(path)) throw new IllegalArgumentException("a library is named by one of its parts: " + path);
            paths = List.copyOf(paths);
        }

        @Override
        public String displayName() { return path(); }

        @Override
        public byte[] read() {
            if (paths.size() == 1) return readPart(paths.getFirst());
            StringBuilder unit = new StringBuilder();
            for (String part : paths) {
                unit.append("#line 1 \"").append(part).append("\"\n")
                    .append(new String(readPart(part), StandardCharsets.UTF_8)).append('\n');
            }
            return unit.toString().getBytes(StandardCharsets.UTF_8);
        }

        private byte[] readPart(String part) {
            try (InputStream in = loader.getResourceAsStream(part)) {
                if (in == null) throw new ByodtException("the datatype library " + part + " is not on the classpath");
                return in.readAllBytes();
            } catch (IOException e) {
                throw new ByodtException("cannot read the datatype library " + part + ": " + e.getMessage(), e);
            }
        }
    }

    record File(Path path) implements LibrarySource {
        @Override
        public String displayName() { return path.toString(); }

        @Override
        public byte[] read() {
            try {
                return Files.readAllBytes(path);
            } catch (IOException e) {
                throw new ByodtException("cannot read the datatype library " + path + ": " + e.getMessage(), e);
            }
        }
    }
}
