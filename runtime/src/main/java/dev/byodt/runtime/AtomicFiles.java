package dev.byodt.runtime;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The one way byodt writes a file (reports, charts, compiled outputs, tensors, cached bitcode), so that a
 * reader sees the old file, no file, or the complete new one, never a half-written one, even after a crash:
 * the content is produced into a temporary file in the same folder (so the final move is a rename within
 * one file system), synced to disk, given the permissions of an ordinary file, and renamed over the target.
 * When anything fails the temporary file is deleted and the target is left as it was.
 */
public final class AtomicFiles {
    /** Produces a file's content at the path it is given (a tool may write there, or rename its own file there). */
    @FunctionalInterface
    public interface Producer {
        void writeTo(Path temporary) throws IOException;
    }

    private static final String FILE_PERMISSIONS = "rw-r--r--", EXECUTABLE_PERMISSIONS = "rwxr-xr-x";

    private AtomicFiles() {}

    public static void write(Path file, byte[] bytes) { write(file, temporary -> Files.write(temporary, bytes)); }

    public static void writeString(Path file, String text) { write(file, text.getBytes(StandardCharsets.UTF_8)); }

    public static void write(Path file, Producer producer) { write(file, producer, FILE_PERMISSIONS); }

    public static void writeExecutable(Path file, Producer producer) { write(file, producer, EXECUTABLE_PERMISSIONS); }

    /**
     * @throws ByodtException "cannot write FILE: reason" when the folder cannot be made or the file cannot be
     *         written; a ByodtException of the producer's own passes unchanged
     */
    private static void write(Path file, Producer producer, String permissions) {
        Path absolute = file.toAbsolutePath();
        if (Files.isDirectory(absolute)) throw new ByodtException("cannot write " + file + ": it is a folder");
        Path temporary = null;
        try {
            Path folder = Files.createDirectories(absolute.getParent());
            temporary = TemporaryFiles.createFile(folder, "." + absolute.getFileName() + ".", ".tmp");
            producer.writeTo(temporary);
            try (FileChannel written = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                written.force(true);
            }
            // Temporary files are created private (0600); the output gets the permissions of an ordinary file.
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString(permissions));
            Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            TemporaryFiles.kept(temporary);
        } catch (IOException e) {
            TemporaryFiles.delete(temporary);
            throw new ByodtException("cannot write " + file + ": " + reason(e), e);
        } catch (RuntimeException e) {
            TemporaryFiles.delete(temporary);
            throw e;
        }
    }

    /** What went wrong, in words: the JDK's messages for these are just a path. */
    private static String reason(IOException e) {
        return switch (e) {
            case AccessDeniedException denied -> "permission denied (" + denied.getFile() + ")";
            case FileAlreadyExistsException exists -> exists.getFile() + " is in the way (not a folder)";
            case NoSuchFileException missing -> "no such file or folder " + missing.getFile();
            default -> String.valueOf(e.getMessage());
        };
    }
}
