package dev.byodt.cli;

/** A command line that cannot be acted on (exit code 2), detected after picocli's own parsing. */
final class UsageException extends RuntimeException {
    UsageException(String message) {
        super(message);
    }
}
