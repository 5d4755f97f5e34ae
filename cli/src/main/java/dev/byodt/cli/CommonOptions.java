package dev.byodt.cli;

import picocli.CommandLine.Option;

/** Options every command takes. */
final class CommonOptions {
    @Option(names = "--verbose", description = "Print stack traces with errors, and timings of each compiler stage.")
    boolean verbose;
}
