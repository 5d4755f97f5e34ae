package dev.byodt.cli.progress;

import dev.byodt.cli.isolation.ChildCommand;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.util.function.Consumer;

/**
 * A progress bar for long runs (me.tongfei:progressbar): items done of the total, items per second and the
 * time left, redrawn in place on a terminal. When the output is not a terminal (piped, redirected, CI logs)
 * it shows nothing at all, so logs and parsed output stay clean. Steps may come from several threads.
 */
public final class Progress implements AutoCloseable {
    private final ProgressBar bar;

    private Progress(ProgressBar bar) {
        this.bar = bar;
    }

    /**
     * A bar for {@code total} items called {@code unit} (e.g. "img"), shown only on a terminal. Since Java 22
     * System.console() exists even when output is redirected, so isTerminal() is what tells; in a child process
     * that runs a user's datatype, the parent's terminal is what tells.
     */
    public static Progress start(String task, long total, String unit) {
        boolean terminal = Boolean.parseBoolean(System.getProperty(ChildCommand.TERMINAL_PROPERTY,
            String.valueOf(System.console() != null && System.console().isTerminal())));
        return terminal ? new Progress(builder(task, total, unit).build()) : new Progress(null);
    }

    /** A bar that hands each rendered line to {@code lines} instead of the terminal. */
    static Progress rendering(String task, long total, String unit, Consumer<String> lines) {
        return new Progress(builder(task, total, unit).setConsumer(new DelegatingProgressBarConsumer(lines)).build());
    }

    private static ProgressBarBuilder builder(String task, long total, String unit) {
        return new ProgressBarBuilder()
            .setTaskName(task)
            .setInitialMax(total)
            .setStyle(ProgressBarStyle.ASCII)
            .setUnit(" " + unit, 1)
            .showSpeed()
            .setUpdateIntervalMillis(250);
    }

    /** Whether anything is being displayed. */
    public boolean visible() { return bar != null; }

    public void step(long items) {
        if (bar != null) bar.stepBy(items);
    }

    @Override
    public void close() {
        if (bar != null) bar.close();
    }
}
