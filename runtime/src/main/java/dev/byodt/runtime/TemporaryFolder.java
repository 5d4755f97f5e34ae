package dev.byodt.runtime;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A folder of temporary files, deleted with everything in it when closed, whatever the work ended with, and
 * at exit if it was not closed ({@link TemporaryFiles}).
 */
public record TemporaryFolder(Path path) implements AutoCloseable {
    /** A new folder named PREFIX followed by random characters, under {@code parent}. */
    public static TemporaryFolder create(Path parent, String prefix) {
        try {
            return new TemporaryFolder(TemporaryFiles.createFolder(parent, prefix));
        } catch (IOException e) {
            throw new ByodtException("cannot create a temporary folder in " + parent + ": " + e.getMessage(), e);
        }
    }

    /** The same in the system's temporary folder (java.io.tmpdir). */
    public static TemporaryFolder create(String prefix) { return create(Path.of(System.getProperty("java.io.tmpdir")), prefix); }

    @Override
    public void close() { TemporaryFiles.delete(path); }
}
