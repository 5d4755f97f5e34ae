package dev.byodt.compiler.emulation;

import dev.byodt.compiler.target.Target;
import dev.byodt.compiler.toolchain.OutputReaders;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Signals;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a RISC-V Linux executable on this machine under a qemu user-mode emulator (Debian's qemu-user:
 * qemu-riscv64, qemu-riscv32) found on the PATH, with a time limit. A run that crashes, exits with a failure
 * or runs past the limit is a ByodtException naming the executable and what happened.
 */
public final class Emulator {
    /** How long one run may take before it is stopped: qemu runs the target code about 10-50 times slower. */
    public static final Duration DEFAULT_TIME_LIMIT = Duration.ofMinutes(5);

    private final Path qemu;
    private final Duration timeLimit;

    private Emulator(Path qemu, Duration timeLimit) {
        this.qemu = qemu;
        this.timeLimit = timeLimit;
    }

    /** The emulator for {@code target}, looked up on this process's PATH. */
    public static Emulator forTarget(Target target, Duration timeLimit) {
        return forTarget(target, timeLimit, System.getenv().getOrDefault("PATH", ""));
    }

    /**
     * The emulator for {@code target}, looked up on {@code searchPath} (directories separated by ':').
     *
     * @throws ByodtException when the target is not RISC-V or the emulator is not installed
     */
    public static Emulator forTarget(Target target, Duration timeLimit, String searchPath) {
        if (!target.isRiscv()) throw new ByodtException("target " + target.name() + " has no emulator: only RISC-V code runs under qemu");
        String program = target.isRiscv64() ? "qemu-riscv64" : "qemu-riscv32";
        Path found = find(program, searchPath).orElseThrow(() -> new ByodtException(program + " not found on the PATH: "
            + "running " + target.name() + " code needs qemu's user-mode emulator (Debian: apt-get install qemu-user)"));
        return new Emulator(found, timeLimit);
    }

    public Path qemu() { return qemu; }

    /** What a finished run printed. */
    public record Run(String stdout, String stderr) {}

    /**
     * Runs {@code executable} with {@code arguments} under qemu, with {@code qemuOptions} before the executable
     * (e.g. "-d", "in_asm"), in {@code workDirectory}.
     *
     * @throws ByodtException when it exits with a non-zero status, is killed by a signal, or runs past the time limit
     */
    public Run run(Path executable, List<String> qemuOptions, List<String> arguments, Path workDirectory) {
        List<String> command = new ArrayList<>();
        command.add(qemu.toString());
        command.addAll(qemuOptions);
        command.add(executable.toString());
        command.addAll(arguments);
        String name = executable.getFileName().toString();
        Process process;
        try {
            process = new ProcessBuilder(command).directory(workDirectory.toFile()).start();
        } catch (IOException e) {
            throw new ByodtException("cannot start " + qemu + ": " + e.getMessage(), e);
        }
        try {
            process.getOutputStream().close();
            CompletableFuture<String> stdout = OutputReaders.readAll(process.getInputStream());
            CompletableFuture<String> stderr = OutputReaders.readAll(process.getErrorStream());
            if (!process.waitFor(timeLimit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor();
                throw new ByodtException("the executable " + name + " ran past the time limit of " + timeLimit.toSeconds()
                    + " s under " + qemu.getFileName() + " and was stopped");
            }
            int status = process.exitValue();
            String errors = stderr.join();
            if (status != 0) {
                String firstLine = errors.lines().filter(l -> !l.isBlank()).findFirst().orElse("").strip();
                String how = status > 128 ? "was killed by signal " + Signals.describe(status - 128) : "exited with status " + status;
                throw new ByodtException("the executable " + name + " " + how + " under " + qemu.getFileName()
                    + (firstLine.isEmpty() ? "" : ": " + firstLine));
            }
            return new Run(stdout.join(), errors);
        } catch (IOException e) {
            throw new ByodtException("cannot run " + name + " under " + qemu + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new ByodtException("interrupted while running " + name + " under qemu", e);
        }
    }

    private static Optional<Path> find(String program, String searchPath) {
        for (String directory : searchPath.split(File.pathSeparator)) {
            if (directory.isEmpty()) continue;
            Path candidate = Path.of(directory, program);
            if (Files.isExecutable(candidate)) return Optional.of(candidate);
        }
        return Optional.empty();
    }
}
