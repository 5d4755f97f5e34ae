package dev.byodt.compiler.aot;

import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.target.TargetExtension;
import dev.byodt.runtime.ByodtException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The C files of the freestanding executable harness, shipped as resources of this module. */
final class HarnessSources {
    private static final String RESOURCE_DIRECTORY = "/dev/byodt/runtime-c/harness/";
    static final String HEADER = "byodt_harness.h";
    private static final List<String> SOURCES = List.of("main.c", "syscalls.c", "memory.c", "text.c", "tensor_proto.c");
    /**
     * What 32-bit RISC-V lacks in hardware and the compiler calls instead: soft float (no D, or no F either)
     * and 64-bit division. bytedeco's LLVM ships no compiler-rt builtins, so byodt carries its own.
     */
    static final List<String> RISCV32_SUPPORT = List.of("softfloat.c", "int64_division.c");

    private HarnessSources() {}

    /**
     * Copies the harness for {@code triple} into {@code directory}, with the target extension's
     * {@code emulation} if any; returns the C files to compile (the header, and the files the emulation
     * includes, are beside them).
     */
    static List<Path> copyTo(Path directory, String triple, Optional<TargetExtension.Emulation> emulation) throws IOException {
        copy(HEADER, directory);
        List<Path> sources = new ArrayList<>();
        for (String source : SOURCES) sources.add(copy(source, directory));
        if (triple.startsWith("riscv32")) {
            for (String source : RISCV32_SUPPORT) sources.add(copy(source, directory));
        }
        if (emulation.isPresent()) {
            for (Map.Entry<String, LibrarySource> include : emulation.get().includes().entrySet()) {
                Files.write(directory.resolve(include.getKey()), include.getValue().read());
            }
            sources.add(copy(emulation.get().harnessSource(), directory));
        }
        return sources;
    }

    static Path copy(String name, Path directory) throws IOException {
        try (InputStream resource = HarnessSources.class.getResourceAsStream(RESOURCE_DIRECTORY + name)) {
            if (resource == null) throw new ByodtException("byodt's jar is missing the harness file " + name);
            Path file = directory.resolve(name);
            Files.copy(resource, file);
            return file;
        }
    }
}
