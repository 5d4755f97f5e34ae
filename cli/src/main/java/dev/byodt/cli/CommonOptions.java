package dev.byodt.cli;

import dev.byodt.runtime.MemoryLimit;
import dev.byodt.runtime.StageTimes;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** Options every command takes. */
final class CommonOptions {
    @Option(names = "--verbose", description = "Print the stack trace with an error, and how long each stage of compiling a model takes.")
    void verbose(boolean on) {
        StageTimes.printTo(on ? System.err : null);
    }

    @Option(names = "--max-memory", paramLabel = "SIZE", converter = MemorySize.class,
        description = "The most memory one tensor, constant, buffer or data file may take (4G, 512M, bytes); "
            + "default: this machine's memory. Larger ones are refused before anything is allocated.")
    void maxMemory(long bytes) {
        MemoryLimit.set(bytes);
    }

    /** "4G", "512M", "1000000": a size in bytes, with the parser's own words when it is not one. */
    static final class MemorySize implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return MemoryLimit.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
