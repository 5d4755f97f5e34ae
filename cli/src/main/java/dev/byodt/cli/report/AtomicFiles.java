package dev.byodt.cli.report;

import dev.byodt.runtime.ByodtException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes report files so that a reader (a CI job publishing them, a user's script) sees either the old
 * file or the complete new one, never a half-written one: the bytes go to a temporary file in the same
 * folder, which is then renamed over the target.
 */
public final class AtomicFiles {
    private AtomicFiles() {}

    public static void write(Path file, String text) { write(file, text.getBytes(StandardCharsets.UTF_8)); }

    public static void write(Path file, byte[] bytes) {
        Path absolute = file.toAbsolutePath();
        Path folder = absolute.getParent();
        Path temporary = null;
        try {
            Files.createDirectories(folder);
            temporary = Files.createTempFile(folder, "." + absolute.getFileName(), ".tmp");
            Files.write(temporary, bytes);
            try {
                Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            deleteQuietly(temporary);
            throw new ByodtException("cannot write " + file + " (" + e.getMessage() + ")", e);
        }
    }

    private static void deleteQuietly(Path temporary) {
        if (temporary == null) return;
        try {
            Files.deleteIfExists(temporary);
        } catch (IOException ignored) {
            // The write has already failed; that error is the one to report.
        }
    }
}
