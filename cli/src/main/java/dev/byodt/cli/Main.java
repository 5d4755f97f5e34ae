package dev.byodt.cli;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.MemoryLimit;
import dev.byodt.runtime.StageTimes;
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
    subcommands = {CompileCommand.class, RunCommand.class, SweepCommand.class, TrainCommand.class, TrainReportCommand.class, DtypesCommand.class, InspectCommand.class, ConformanceCommand.class, BenchCommand.class, BenchDtypesCommand.class,
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
        MemoryLimit.set(0);
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler(Main::report);
        cli.setParameterExceptionHandler((e, a) -> {
            printError(e.getMessage());
            System.err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            return USAGE_ERROR;
        });
        try {
            return cli.execute(args);
        } catch (OutOfMemoryError e) {
            // The limits are checked before allocating; this is what they did not foresee, still said in one line.
            printError("out of memory (" + e.getMessage() + "); a lower --max-memory or a smaller --shape batch may help");
            return MODEL_ERROR;
        } catch (StackOverflowError e) {
            printError("internal error: " + e + " (run with --verbose for details)");
            return INTERNAL_ERROR;
        } finally {
            MemoryLimit.set(0);
            StageTimes.printTo(null);
        }
    }

    private static void printError(String message) {
        System.err.println("byodt: " + OneLineMessage.of(message));
    }

    private static int report(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        boolean verbose = parsed.subcommand() != null && parsed.subcommand().hasMatchedOption("--verbose");
        if (e instanceof UsageException) {
            printError(e.getMessage());
            return USAGE_ERROR;
        }
        if (e instanceof ByodtException) {
            printError(e.getMessage());
            if (verbose) e.printStackTrace();
            return MODEL_ERROR;
        }
        printError("internal error: " + e + (verbose ? "" : " (run with --verbose for details)"));
        if (verbose) e.printStackTrace();
        return INTERNAL_ERROR;
    }
}
