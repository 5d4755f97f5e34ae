package dev.byodt.compiler.aot;

import dev.byodt.compiler.codegen.ProgramSignature;
import dev.byodt.compiler.target.Target;
import dev.byodt.compiler.target.TargetExtension;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.compiler.toolchain.ProcessResult;
import dev.byodt.runtime.AtomicFiles;
import dev.byodt.runtime.ByodtException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds a static executable that needs no C library from a model's object file: the harness and the
 * model's glue are compiled with the bundled clang for the model's target, then everything is linked by
 * the bundled ld.lld with {@code _start} as the entry point.
 */
final class ExecutableLinker {
    private static final String GLUE_FILE = "byodt_glue.c";

    private ExecutableLinker() {}

    /**
     * Links {@code modelObject} into the executable {@code output} (written atomically), using
     * {@code workDirectory} (empty, deleted by the caller) for the harness's sources and objects.
     * The target extension's {@code emulation}, if any, adds the emulation of its instructions that
     * lets the executable run under qemu-user.
     */
    static void link(BundledTools tools, Path modelObject, ProgramSignature signature, String triple,
                     String features, Optional<TargetExtension.Emulation> emulation, Path workDirectory, Path output) throws IOException {
        List<Path> sources = new ArrayList<>(HarnessSources.copyTo(workDirectory, triple, emulation));
        sources.add(Files.writeString(workDirectory.resolve(GLUE_FILE), ExecutableGlue.source(signature)));

        List<String> compile = new ArrayList<>(List.of(tools.clang().toString(), "--target=" + triple));
        compile.addAll(targetFlags(triple, features));
        emulation.ifPresent(e -> e.defines().forEach(define -> compile.add("-D" + define)));
        compile.addAll(List.of("-O2", "-ffreestanding", "-fno-builtin", "-nostdlib", "-fno-stack-protector", "-c"));
        List<Path> objects = new ArrayList<>();
        for (Path source : sources) {
            compile.add(source.getFileName().toString());
            objects.add(workDirectory.resolve(source.getFileName().toString().replaceFirst("\\.c$", ".o")));
        }
        ProcessResult compiled = tools.run(compile, workDirectory);
        if (!compiled.succeeded()) {
            throw new ByodtException("cannot compile the executable harness for " + triple + ": " + compiled.firstErrorLine());
        }
        objects.add(modelObject.toAbsolutePath());

        AtomicFiles.writeExecutable(output, temporary -> {
            List<String> linkCommand = new ArrayList<>(List.of(tools.lld().toString(), "-static", "-e", "_start",
                "--gc-sections", "-z", "noexecstack", "-o", temporary.toString()));
            for (Path object : objects) linkCommand.add(object.toString());
            ProcessResult linked = tools.run(linkCommand, workDirectory);
            if (!linked.succeeded()) {
                throw new ByodtException("cannot link the executable " + output.getFileName() + ": " + linked.firstErrorLine());
            }
        });
    }

    /** The clang flags of the target the model's object was generated for (its triple and LLVM features). */
    static List<String> targetFlags(String triple, String features) {
        return new Target(triple, triple, "", features).clangFlags();
    }
}
