package dev.byodt.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Opening the files a user names (models, tensors, data sets) with one-line errors instead of I/O exceptions. */
public final class InputFiles {
    private InputFiles() {}

    public static byte[] readAllBytes(Path file) {
        requireRegularFile(file);
        try {
            MemoryLimit.requireBytes(Files.size(file), "reading " + file);
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw cannotRead(file, e);
        } catch (OutOfMemoryError e) {
            throw new ByodtException("cannot read " + file + ": it does not fit in memory", e);
        }
    }

    public static InputStream open(Path file) {
        requireRegularFile(file);
        try {
            return Files.newInputStream(file);
        } catch (IOException e) {
            throw cannotRead(file, e);
        }
    }

    /**
     * A FIFO with no writer, a terminal or a device would block the read or never end it: byodt reads data
     * from regular files only.
     */
    private static void requireRegularFile(Path file) {
        if (!Files.exists(file)) throw new ByodtException("no such file: " + file);
        if (Files.isDirectory(file)) throw new ByodtException(file + " is a directory, not a file");
        if (!Files.isRegularFile(file)) throw new ByodtException(file + " is not a regular file (a pipe or device?); byodt reads files");
    }

    static ByodtException cannotRead(Path file, IOException e) {
        String reason = e instanceof AccessDeniedException ? "permission denied" : String.valueOf(e.getMessage());
        return new ByodtException("cannot read " + file + ": " + reason, e);
    }
}
