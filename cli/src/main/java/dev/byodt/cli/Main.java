package dev.byodt.cli;

import dev.byodt.runtime.ByodtException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The byodt command. Errors a user can act on print one line and exit 1 (model or data) or 2 (usage); any
 * other exception is a bug in byodt and exits 3. A stack trace appears only with --verbose.
 */
@Command(name = "byodt",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = "Bring your own datatype: compile and run ONNX models in custom number formats through LLVM.",
    subcommands = {CompileCommand.class, RunCommand.class, SweepCommand.class, DtypesCommand.class, InspectCommand.class, ConformanceCommand.class, BenchCommand.class, BenchDtypesCommand.class,
        CommandLine.HelpCommand.class})
public final class Main {
    static final int MODEL_ERROR = 1;
    static final int USAGE_ERROR = 2;
    static final int INTERNAL_ERROR = 3;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs a command line and returns its exit code; tests call this instead of main. */
    public static int execute(String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler(Main::report);
        cli.setParameterExceptionHandler((e, a) -> {
            System.err.println("byodt: " + e.getMessage());
            System.err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            return USAGE_ERROR;
        });
        return cli.execute(args);
    }

    private static int report(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        boolean verbose = parsed.subcommand() != null && parsed.subcommand().hasMatchedOption("--verbose");
        if (e instanceof UsageException) {
            System.err.println("byodt: " + e.getMessage());
            return USAGE_ERROR;
        }
        if (e instanceof ByodtException) {
            System.err.println("byodt: " + e.getMessage());
            if (verbose) e.printStackTrace();
            return MODEL_ERROR;
        }
        System.err.println("byodt: internal error: " + e + (verbose ? "" : " (run with --verbose for details)"));
        if (verbose) e.printStackTrace();
        return INTERNAL_ERROR;
    }
}
