package dev.byodt.cli.isolation;

import dev.byodt.runtime.Activity;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Signals;
import dev.byodt.runtime.TemporaryFolder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs a byodt command line again in a child JVM, so that a user's datatype (C code that byodt calls at
 * compile time and from the model) cannot take byodt down with it. The child records its steps
 * ({@link Activity}); a step that runs the user's code may run for the time limit, after which the child is
 * stopped. A crash or a
 * time-out becomes one line naming the datatype, the signal, the node or function, and the step. The child
 * prints what byodt prints: its standard output and error are passed through, less the JVM's crash banner.
 */
public final class ChildCommand {
    /** Set in the child: whether the parent's standard output is a terminal (the child's is a pipe). */
    public static final String TERMINAL_PROPERTY = "byodt.terminal";
    private static final String CRASH_REPORT = "crash-report.txt";
    private static final long POLL_MILLIS = 50;

    private final String mainClass;
    private final List<String> arguments;
    private final String datatypes;
    private final Duration stepLimit;

    /**
     * The command {@code arguments} for {@code mainClass}, run for the user's {@code datatypes} ("lns (from
     * lns16.yaml)", for messages), each step within {@code stepLimit}.
     */
    public ChildCommand(String mainClass, List<String> arguments, String datatypes, Duration stepLimit) {
        this.mainClass = mainClass;
        this.arguments = List.copyOf(arguments);
        this.datatypes = datatypes;
        this.stepLimit = stepLimit;
    }

    /** Whether this process is itself such a child, where user code runs as the parent asked. */
    public static boolean insideChild() { return Activity.recorded(); }

    /**
     * Runs the command and returns the child's exit code.
     *
     * @throws ByodtException when the child crashes, is killed or runs a step past the time limit
     */
    public int run() {
        try (TemporaryFolder folder = TemporaryFolder.create("byodt-isolated-")) {
            Process child = start(folder.path());
            Thread out = pass(child.getInputStream(), System.out, true);
            Thread err = pass(child.getErrorStream(), System.err, false);
            String timedOutIn = awaitWithinLimit(child, folder.path());
            join(out);
            join(err);
            String step = lastStep(folder.path());
            if (timedOutIn != null) {
                throw new ByodtException("datatype " + datatypes + ": " + timedOutIn + " ran past the time limit of "
                    + stepLimit.toSeconds() + " s and was stopped (--time-limit SECONDS)");
            }
            var crash = JvmCrash.read(folder.path().resolve(CRASH_REPORT), folder.path().resolve(Activity.FUNCTIONS_FILE));
            int status = child.exitValue();
            // A native stack overflow can kill the JVM before it writes a report: then only the signal is known.
            if (crash.isEmpty() && status > 128 && status < 128 + 32) {
                crash = Optional.of(new JvmCrash(Signals.describe(status - 128), Optional.empty()));
            }
            if (crash.isPresent()) {
                String where = crash.get().where();
                throw new ByodtException("datatype " + datatypes + " crashed the process running it with " + crash.get().signal()
                    + (where.isEmpty() ? "" : " " + where) + " while " + step + "; byodt itself stopped cleanly");
            }
            return status;
        }
    }

    private Process start(Path folder) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            // A debugger's port or an error file of the parent's would clash with the child's own.
            if (!option.startsWith("-agentlib:jdwp") && !option.startsWith("-XX:ErrorFile")
                && !option.startsWith("-D" + Activity.FOLDER_PROPERTY + "=") && !option.startsWith("-D" + TERMINAL_PROPERTY + "=")) {
                command.add(option);
            }
        }
        command.add("-XX:ErrorFile=" + folder.resolve(CRASH_REPORT));
        command.add("-XX:-CreateCoredumpOnCrash");
        command.add("-D" + Activity.FOLDER_PROPERTY + "=" + folder);
        command.add("-D" + TERMINAL_PROPERTY + "=" + (System.console() != null && System.console().isTerminal()));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(arguments);
        try {
            return new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new ByodtException("cannot start a process for datatype " + datatypes + ": " + e.getMessage(), e);
        }
    }

    /** Waits for the child; returns null when it ended, or the step it was stopped in after running past the limit. */
    private String awaitWithinLimit(Process child, Path folder) {
        String step = "";
        long stepStart = System.nanoTime();
        try {
            while (!child.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                String now = readStep(folder);
                if (!now.equals(step)) {
                    step = now;
                    stepStart = System.nanoTime();
                } else if (isTimed(step) && System.nanoTime() - stepStart > stepLimit.toNanos()) {
                    stop(child);
                    return lastStep(folder);
                }
            }
            return null;
        } catch (InterruptedException e) {
            stop(child);
            Thread.currentThread().interrupt();
            throw new ByodtException("interrupted while datatype " + datatypes + " ran in its own process", e);
        }
    }

    private static void stop(Process child) {
        child.descendants().forEach(ProcessHandle::destroyForcibly);
        child.destroyForcibly();
        try {
            child.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** "running the model": the step the child recorded last, or "starting" before its first. */
    private static String lastStep(Path folder) {
        String[] fields = readStep(folder).split("\t", 3);
        return fields.length < 3 ? "starting" : fields[2];
    }

    /** Whether a step runs the user's code, which the time limit applies to (byodt's own work it does not). */
    private static boolean isTimed(String step) {
        String[] fields = step.split("\t", 3);
        return fields.length == 3 && fields[1].equals(Activity.TIMED);
    }

    private static String readStep(Path folder) {
        try {
            return Files.readString(folder.resolve(Activity.STEP_FILE));
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Copies the child's {@code stream} to {@code to} as it comes. The standard output goes line by line, so
     * that the JVM's crash banner can be held back ({@link CrashBannerFilter}).
     */
    private static Thread pass(InputStream stream, PrintStream to, boolean holdBackCrashBanner) {
        Thread thread = new Thread(() -> {
            try (stream) {
                if (!holdBackCrashBanner) {
                    byte[] buffer = new byte[8192];
                    for (int n; (n = stream.read(buffer)) > 0; ) {
                        to.write(buffer, 0, n);
                        to.flush();
                    }
                    return;
                }
                BufferedReader lines = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
                CrashBannerFilter filter = new CrashBannerFilter();
                for (String line; (line = lines.readLine()) != null; ) filter.accept(line).forEach(to::println);
                filter.finish().forEach(to::println);
            } catch (IOException e) {
                // The child's streams close when it ends; what it wrote so far has been passed on.
            }
        }, "byodt-child-output");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
