package dev.byodt.cli;

import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.plugin.UserDatatypes;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;

/** Where a user's datatypes come from, for every command that takes --dtype and for `byodt dtypes`. */
final class PluginOptions {
    @Option(names = "--plugin", paramLabel = "PATH",
        description = "A datatype plug-in jar, or a folder of them and of datatype descriptors (repeatable). "
            + "The jars and descriptors in $XDG_CONFIG_HOME/byodt/plugins (~/.config/byodt/plugins) are always loaded.")
    List<Path> plugins = List.of();

    @Option(names = "--datatype", paramLabel = "FILE.yaml",
        description = "A datatype descriptor: a YAML file naming a C library beside it and which of its functions "
            + "computes each operation (repeatable; see docs/bring-your-own-datatype.md).")
    List<Path> descriptors = List.of();

    private DatatypeRegistry registry;

    /** byodt's datatypes and the user's, loaded once per command. */
    DatatypeRegistry registry() {
        if (registry == null) registry = UserDatatypes.registry(UserDatatypes.defaultPluginFolder(), plugins, descriptors);
        return registry;
    }
}
