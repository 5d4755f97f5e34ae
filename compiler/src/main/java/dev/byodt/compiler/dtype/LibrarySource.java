package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Where a datatype's library is: a C source to compile with the bundled clang, or LLVM bitcode (.bc) or IR
 * text (.ll) to link as it is. Either a classpath resource (built-in datatypes and plug-in jars) or a file.
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

    /** A resource of byodt itself (the built-in datatypes' C files). */
    static LibrarySource resource(String path) { return new Resource(path, LibrarySource.class.getClassLoader()); }

    /** A resource found by {@code loader}: a plug-in passes its own class's loader. */
    static LibrarySource resource(ClassLoader loader, String path) { return new Resource(path, loader); }

    static LibrarySource file(Path path) { return new File(path); }

    record Resource(String path, ClassLoader loader) implements LibrarySource {
        @Override
        public String displayName() { return path; }

        @Override
        public byte[] read() {
            try (InputStream in = loader.getResourceAsStream(path)) {
                if (in == null) throw new ByodtException("the datatype library " + path + " is not on the classpath");
                return in.readAllBytes();
            } catch (IOException e) {
                throw new ByodtException("cannot read the datatype library " + path + ": " + e.getMessage(), e);
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
