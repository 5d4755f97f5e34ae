package dev.byodt.compiler.toolchain;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a child process's output to its end on a thread of its own. Not on the common fork-join pool: that pool
 * has one thread on a two-core machine, and while parallel work (a parallel stream, a concurrent test) fills
 * it, a reader queued behind that work leaves the child blocked on a full pipe and its caller waiting.
 */
public final class OutputReaders {
    private OutputReaders() {}

    /** The stream's whole text (UTF-8), read on a new daemon thread; the stream is closed at its end. */
    public static CompletableFuture<String> readAll(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try (stream) {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, task -> Thread.ofPlatform().daemon().name("byodt-process-output").start(task));
    }
}
