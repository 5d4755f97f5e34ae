package dev.byodt.cli;

import picocli.CommandLine.Option;

/** Options every command takes. */
final class CommonOptions {
    @Option(names = "--verbose", description = "Print the stack trace with an error.")
    boolean verbose;
}
