package dev.byodt.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What this process is doing, for the parent byodt process when this one runs a user's datatype on its
 * behalf (the CLI's {@code isolation} package): the parent restarts its time limit at every step and, when
 * this process crashes, names the step and the function the crash address falls in. Outside such a child
 * process nothing is recorded and every method returns at once.
 */
public final class Activity {
    /** The system property naming the folder a child process records into. */
    public static final String FOLDER_PROPERTY = "byodt.isolation.folder";
    /** The file holding the current step: a sequence number, {@link #TIMED} or {@link #UNTIMED}, and the step, tab-separated. */
    public static final String STEP_FILE = "step";
    public static final String TIMED = "user";
    public static final String UNTIMED = "byodt";
    /** The file of machine-code addresses: one "ADDRESS NAME" line per function, the address in hex. */
    public static final String FUNCTIONS_FILE = "functions";

    private static final Path FOLDER = folder();
    private static long steps;

    private Activity() {}

    /** Whether this process records its steps, i.e. runs inside a parent's isolation. */
    public static boolean recorded() { return FOLDER != null; }

    /** A step of the user's code, ended by closing it: byodt's own work follows, untimed. */
    public interface Step extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Starts a step that runs code byodt does not vouch for (a datatype's library, a plug-in's registration):
     * "converting 150 weights with lns16_from_f64", "running the model". The parent limits its time.
     */
    public static Step userCode(String what) {
        if (FOLDER == null) return () -> {};
        step(true, what);
        return () -> step(false, "byodt's own work after " + what);
    }

    /** Starts a step of byodt's own work ("generating the model's code"), which the parent does not time. */
    public static void ownCode(String what) { step(false, what); }

    private static synchronized void step(boolean timed, String what) {
        if (FOLDER != null) write(STEP_FILE, ++steps + "\t" + (timed ? TIMED : UNTIMED) + "\t" + what);
    }

    /** Records where the machine code of named functions starts, so that a crash address can be named. */
    public static void functions(Map<String, Long> addresses) {
        if (FOLDER == null) return;
        write(FUNCTIONS_FILE, addresses.entrySet().stream()
            .map(e -> Long.toHexString(e.getValue()) + " " + e.getKey()).collect(Collectors.joining("\n", "", "\n")));
    }

    private static void write(String file, String content) {
        try {
            Files.writeString(FOLDER.resolve(file), content);
        } catch (IOException e) {
            // The parent then names an older step, or none: the work itself must not fail for it.
        }
    }

    private static Path folder() {
        String folder = System.getProperty(FOLDER_PROPERTY);
        return folder == null || folder.isEmpty() ? null : Path.of(folder);
    }
}
