package dev.byodt.runtime;

/**
 * A problem with a model, a data file or a datatype that the user can act on: the message is one line
 * naming the file, node, operator, tensor or datatype at fault. The command line prints the message
 * alone (exit code 1) and the stack trace only with --verbose.
 */
public class ByodtException extends RuntimeException {
    public ByodtException(String message) {
        super(message);
    }

    public ByodtException(String message, Throwable cause) {
        super(message, cause);
    }
}
