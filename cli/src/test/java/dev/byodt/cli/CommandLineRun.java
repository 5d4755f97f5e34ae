package dev.byodt.cli;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs the byodt command line in-process and captures what it prints. Test classes run concurrently, so runs
 * do not swap System.out and System.err: those are replaced once by streams that write to the capture of the
 * thread printing, which the threads a run starts inherit (the workers of its model calls, the readers of an
 * isolated child's output), and to the original streams outside a run.
 */
record CommandLineRun(int exitCode, String out, String err) {
    /** The running command's standard output and error, for its thread and the threads it starts. */
    private static final InheritableThreadLocal<PrintStream[]> CAPTURE = new InheritableThreadLocal<>();

    static {
        System.setOut(routed(System.out, 0));
        System.setErr(routed(System.err, 1));
    }

    static CommandLineRun of(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        CAPTURE.set(new PrintStream[]{new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)});
        try {
            int code = Main.execute(args);
            return new CommandLineRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            CAPTURE.remove();
        }
    }

    /** A stream that writes to the printing thread's capture (stream {@code which} of it), or else to {@code original}. */
    private static PrintStream routed(PrintStream original, int which) {
        return new PrintStream(new OutputStream() {
            private PrintStream target() {
                PrintStream[] capture = CAPTURE.get();
                return capture == null ? original : capture[which];
            }

            @Override
            public void write(int b) { target().write(b); }

            @Override
            public void write(byte[] bytes, int offset, int length) { target().write(bytes, offset, length); }

            @Override
            public void flush() { target().flush(); }
        }, true, StandardCharsets.UTF_8);
    }

    /** The error output is exactly one line (no stack trace). */
    boolean oneLineError() {
        return err.strip().lines().count() == 1;
    }
}
