package dev.byodt.cli;

import dev.byodt.cli.compare.Gate;
import dev.byodt.cli.sweep.DatatypeSpec;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.runtime.ByodtException;
import picocli.CommandLine.Option;

import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/** The accuracy thresholds of a sweep, shared by `sweep` and `sweep merge`, and the datatypes they apply to. */
final class SweepGateOptions {
    @Option(names = "--min-accuracy", paramLabel = "P", description = "Exit 1 when a gated datatype's top-1 is below P percent.")
    Double minAccuracy;

    @Option(names = "--max-drop", paramLabel = "P", description = "Exit 1 when a gated datatype loses more than P points against float32.")
    Double maxDrop;

    @Option(names = "--gate", paramLabel = "SPEC",
        description = "The datatypes --min-accuracy/--max-drop apply to (same syntax as --dtypes); default: all of them.")
    String gateSpec;

    Gate gate() {
        try {
            return new Gate(minAccuracy, maxDrop);
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** The gated datatype names, or null for all of them; {@code blocks} reads block datatypes' names. */
    Set<String> gated(Function<String, Optional<BlockDatatypeName>> blocks) {
        try {
            return gateSpec == null ? null : Set.copyOf(DatatypeSpec.expand(gateSpec, blocks));
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
    }
}
