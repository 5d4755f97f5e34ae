package dev.byodt.compiler.fuzz;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.MemoryLimit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What every harness shares: byodt's readers take files, so each input is written to a file of the harness's
 * own (in memory, /dev/shm, where there is one), and the memory limit is low while it is read, so that an
 * input that asks for much is refused, as it would be on any machine, instead of slowing the run down.
 *
 * <p>A ByodtException is byodt's answer to a bad input (a one-line error); anything else that escapes, an
 * internal error, an OutOfMemoryError or a StackOverflowError, is a crash the fuzzer reports.
 */
final class FuzzInputs {
    static final long MEMORY_LIMIT = 64L << 20;

    private FuzzInputs() {}

    @FunctionalInterface
    interface Reader {
        void read(Path file);
    }

    /** A file {@code name} in a folder of this process, created once. */
    static Path file(String name) {
        try {
            Path shm = Path.of("/dev/shm");
            Path folder = Files.createTempDirectory(Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")), "byodt-fuzz-");
            folder.toFile().deleteOnExit();
            Path file = folder.resolve(name);
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code data} to {@code file} and reads it, a ByodtException being an answer, not a finding. */
    static void readAs(Path file, byte[] data, Reader reader) {
        MemoryLimit.set(MEMORY_LIMIT);
        try {
            Files.write(file, data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            reader.read(file);
        } catch (ByodtException answered) {
            if (answered.getMessage() == null || answered.getMessage().isBlank()) throw new AssertionError("an error with no message", answered);
        } finally {
            MemoryLimit.set(0);
        }
    }
}
