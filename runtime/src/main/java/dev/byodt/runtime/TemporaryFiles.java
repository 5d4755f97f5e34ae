package dev.byodt.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Every temporary file and folder byodt makes, so that none is left behind on any way out: the code that
 * makes one deletes it when done (in a finally), and whatever is still pending when the JVM exits (an
 * error that skipped the finally, Ctrl-C, a SIGTERM from a time-out) is deleted by a shutdown hook. Only a
 * SIGKILL or a power cut can leave one.
 *
 * <p>Folders go under {@code java.io.tmpdir} as it is when they are made (the JDK reads it only once).
 */
public final class TemporaryFiles {
    private static final Set<Path> PENDING = ConcurrentHashMap.newKeySet();
    private static final long TOOL_EXIT_SECONDS = 5;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(TemporaryFiles::deletePending, "byodt-temporary-files"));
    }

    private TemporaryFiles() {}

    /** A new folder {@code prefix...} in the temporary folder. */
    public static Path createFolder(String prefix) throws IOException {
        return createFolder(Path.of(System.getProperty("java.io.tmpdir")), prefix);
    }

    public static Path createFolder(Path parent, String prefix) throws IOException {
        return pending(Files.createTempDirectory(parent, prefix));
    }

    /** A new empty file {@code prefix...suffix} in the temporary folder. */
    public static Path createFile(String prefix, String suffix) throws IOException {
        return createFile(Path.of(System.getProperty("java.io.tmpdir")), prefix, suffix);
    }

    public static Path createFile(Path folder, String prefix, String suffix) throws IOException {
        return pending(Files.createTempFile(folder, prefix, suffix));
    }

    /** The file was renamed into place (or deleted by its owner): it is no longer to be cleaned up. */
    public static void kept(Path path) {
        PENDING.remove(path);
    }

    /**
     * Deletes a temporary file or folder with all it holds. It never fails: a leftover wastes a little
     * space, and it must not hide the result or the error of the work that used it.
     */
    public static void delete(Path path) {
        if (path == null) return;
        try (Stream<Path> paths = Files.walk(path)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException | RuntimeException e) {
            // Already gone, or not ours to delete any more: nothing else to do.
        }
        PENDING.remove(path);
    }

    private static Path pending(Path path) {
        PENDING.add(path);
        return path;
    }

    /**
     * The tools byodt runs (clang, ld.lld, qemu) write into these folders and outlive a JVM that is told to
     * stop, so they are stopped first; otherwise a file one of them writes after the folder was emptied keeps
     * the folder.
     */
    private static void deletePending() {
        if (PENDING.isEmpty()) return;
        List<ProcessHandle> tools = ProcessHandle.current().descendants().toList();
        tools.forEach(ProcessHandle::destroy);
        for (ProcessHandle tool : tools) {
            try {
                tool.onExit().get(TOOL_EXIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException | ExecutionException | TimeoutException e) {
                tool.destroyForcibly();
            }
        }
        for (Path path : Set.copyOf(PENDING)) delete(path);
    }
}
