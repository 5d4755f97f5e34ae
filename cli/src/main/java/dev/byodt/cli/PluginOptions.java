package dev.byodt.cli;

import dev.byodt.cli.isolation.ChildCommand;
import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.plugin.UserDatatypes;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Where a user's datatypes come from, for every command that takes --dtype and for `byodt dtypes`, and how far
 * byodt trusts their code: unless --trust-plugins is given, a command that would run it runs in a child process.
 */
final class PluginOptions {
    @Option(names = "--plugin", paramLabel = "PATH",
        description = "A datatype plug-in jar, or a folder of them and of datatype descriptors (repeatable). "
            + "The jars and descriptors in $XDG_CONFIG_HOME/byodt/plugins (~/.config/byodt/plugins) are always loaded.")
    List<Path> plugins = List.of();

    @Option(names = "--datatype", paramLabel = "FILE.yaml",
        description = "A datatype descriptor: a YAML file naming a C library beside it and which of its functions "
            + "computes each operation (repeatable; see docs/bring-your-own-datatype.md).")
    List<Path> descriptors = List.of();

    @Option(names = "--trust-plugins",
        description = "Run the code of the user's datatypes (plug-in jars, descriptor libraries) in byodt's own process. "
            + "Without it, a command that runs such code runs in a child process, so that a crash or a hang in it "
            + "ends in a one-line error naming the datatype.")
    boolean trustPlugins;

    @Option(names = "--time-limit", defaultValue = "300", paramLabel = "SECONDS",
        description = "How long one step of code byodt runs apart may take before it is stopped: a user's datatype in its "
            + "child process (registering, converting weights, a call of the model), or an emulated run with a RISC-V "
            + "--target (default: ${DEFAULT-VALUE}).")
    long timeLimitSeconds;

    private DatatypeRegistry registry;

    /** byodt's datatypes and the user's, loaded once per command. */
    DatatypeRegistry registry() {
        if (registry == null) registry = UserDatatypes.registry(UserDatatypes.defaultPluginFolder(), plugins, descriptors);
        return registry;
    }

    Duration timeLimit() {
        if (timeLimitSeconds <= 0) throw new UsageException("--time-limit must be positive");
        return Duration.ofSeconds(timeLimitSeconds);
    }

    /**
     * Runs this command in a child process when it would run a user's code here: any plug-in jar (its
     * registration is Java code of the user's), or a descriptor's datatype among {@code used} (only asked
     * when no jar decides it). Returns the child's exit code, or empty when the command runs in this process:
     * with --trust-plugins, inside such a child, or with nothing of the user's to run.
     */
    Optional<Integer> runApartIfUntrusted(CommandSpec spec, Supplier<Collection<DatatypeInstance>> used) {
        if (trustPlugins || ChildCommand.insideChild()) return Optional.empty();
        List<Path> jars = UserDatatypes.jars(UserDatatypes.defaultPluginFolder(), plugins);
        String users;
        if (!jars.isEmpty()) {
            users = "of plug-in jar" + (jars.size() == 1 ? " " : "s ") + jars.stream().map(Path::toString).collect(Collectors.joining(", "));
        } else {
            List<String> user = used.get().stream().filter(i -> !i.definition().origin().isEmpty())
                .map(i -> i + " (from " + i.definition().origin() + ")").distinct().toList();
            if (user.isEmpty()) return Optional.empty();
            users = String.join(", ", user);
        }
        List<String> arguments = spec.root().commandLine().getParseResult().originalArgs();
        return Optional.of(new ChildCommand(Main.class.getName(), arguments, users, timeLimit()).run());
    }
}
