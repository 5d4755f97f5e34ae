package dev.byodt.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A folder of temporary files, deleted with everything in it when closed, whatever the work ended with. */
public record TemporaryFolder(Path path) implements AutoCloseable {
    /** A new folder named PREFIX followed by random characters, under {@code parent}. */
    public static TemporaryFolder create(Path parent, String prefix) {
        try {
            return new TemporaryFolder(Files.createTempDirectory(parent, prefix));
        } catch (IOException e) {
            throw new ByodtException("cannot create a temporary folder in " + parent + ": " + e.getMessage(), e);
        }
    }

    /** The same in the system's temporary folder (java.io.tmpdir). */
    public static TemporaryFolder create(String prefix) { return create(Path.of(System.getProperty("java.io.tmpdir")), prefix); }

    /** Deletes {@code folder} and everything in it, if it exists. */
    public static void deleteRecursively(Path folder) {
        try (Stream<Path> paths = Files.walk(folder)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(path);
        } catch (IOException e) {
            // A leftover temporary file wastes a little space; it must not hide the result of the work it served.
        }
    }

    @Override
    public void close() { deleteRecursively(path); }
}
