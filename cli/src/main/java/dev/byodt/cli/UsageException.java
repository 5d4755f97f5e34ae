package dev.byodt.cli;

/** A command line that cannot be acted on (exit code 2), detected after picocli's own parsing. */
public final class UsageException extends RuntimeException {
    public UsageException(String message) {
        super(message);
    }
}
