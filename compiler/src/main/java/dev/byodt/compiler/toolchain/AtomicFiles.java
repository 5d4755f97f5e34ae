package dev.byodt.compiler.toolchain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes a file so that readers see either the old file, no file, or the complete new one: the content is
 * produced into a temporary file in the same directory (so the final move is a rename within one file
 * system), then renamed over the target. When the producer fails the temporary file is deleted.
 */
public final class AtomicFiles {
    /** Produces a file's content at the path it is given. */
    @FunctionalInterface
    public interface Producer {
        void writeTo(Path temporary) throws IOException;
    }

    private AtomicFiles() {}

    public static void write(Path target, Producer producer) throws IOException {
        write(target, producer, "rw-r--r--");
    }

    public static void writeExecutable(Path target, Producer producer) throws IOException {
        write(target, producer, "rwxr-xr-x");
    }

    public static void writeString(Path target, String content) throws IOException {
        write(target, temporary -> Files.writeString(temporary, content));
    }

    private static void write(Path target, Producer producer, String permissions) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path directory = absolute.getParent();
        Files.createDirectories(directory);
        Path temporary = Files.createTempFile(directory, "." + absolute.getFileName() + ".", ".tmp");
        try {
            producer.writeTo(temporary);
            // Temporary files are created private (0600); the output gets the permissions of an ordinary file.
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString(permissions));
            Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
