package dev.byodt.compiler.aot;

import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.ProgramSignature;
import dev.byodt.compiler.target.TargetExtension;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.compiler.toolchain.ProcessResult;
import dev.byodt.runtime.AtomicFiles;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.TemporaryFiles;
import dev.byodt.runtime.TemporaryFiles;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * Writes a compiled model to files: LLVM IR text, assembly, an object, a shared library or a static
 * executable, plus a C header beside objects and shared libraries. Every file is written atomically, so
 * a failed emit leaves the previous file (or none) in place, never a partial one. The module is not
 * changed: code generation runs on a copy, because LLVM's code generator rewrites the IR it is given.
 */
public final class Emitter {
    private final Supplier<BundledTools> tools;

    /** An emitter that extracts the bundled clang and ld.lld only when an output needs them. */
    public Emitter() {
        this.tools = BundledTools::get;
    }

    public Emitter(BundledTools tools) {
        this.tools = () -> tools;
    }

    /**
     * Writes {@code output} of the given kind from a compiled model, for the target it was compiled for.
     *
     * @return the files written: the output, then the header when {@link EmitKind#writesHeader()}
     * @throws ByodtException naming the output when code generation, compiling the harness or linking fails;
     *         no output file is then left behind
     */
    public List<Path> emit(EmitKind kind, CompiledModule compiled, Path output) {
        if (compiled.signature().threads() > 1) {
            throw new IllegalArgumentException("a model compiled for several threads runs in this process only (HostModel)");
        }
        return emit(kind, compiled.module(), compiled.targetMachine(), compiled.signature(), output);
    }

    /** {@link #emit(EmitKind, CompiledModule, Path)} for a module built some other way (tests write IR by hand). */
    List<Path> emit(EmitKind kind, LLVMModuleRef module, LLVMTargetMachineRef machine,
                    ProgramSignature signature, Path output) {
        List<Path> written = new ArrayList<>(List.of(output));
        Path header = null;
        String headerText = null;
        if (kind.writesHeader()) {
            header = headerPath(output);
            headerText = ModelHeader.text(signature, header.getFileName().toString(), output.getFileName().toString());
            written.add(header);
        }
        try {
            switch (kind) {
                case LLVM -> AtomicFiles.write(output, temporary -> printModule(module, temporary));
                case ASM -> AtomicFiles.write(output, temporary -> emitCode(machine, module, temporary, LLVMAssemblyFile));
                case OBJ -> AtomicFiles.write(output, temporary -> emitCode(machine, module, temporary, LLVMObjectFile));
                case SO -> inWorkDirectory(work -> linkShared(machine, module, work, output));
                case EXE -> inWorkDirectory(work -> linkExecutable(machine, module, signature, Optional.empty(), work, output));
            }
        } catch (IOException e) {
            throw new ByodtException("cannot write " + output + ": " + e.getMessage(), e);
        }
        if (header != null) {
            try {
                AtomicFiles.writeString(header, headerText);
            } catch (RuntimeException e) {
                // Outputs are written all or none: an object without its header is of no use to a C caller.
                TemporaryFiles.delete(output);
                throw e;
            }
        }
        return written;
    }

    /**
     * Writes a static executable of a RISC-V model that runs under qemu-user: on a target with an extension
     * (P) it also carries the emulation of its instructions (qemu has no P), which executables for P hardware
     * leave out.
     */
    public void emitForEmulator(CompiledModule compiled, Path output) {
        Optional<TargetExtension.Emulation> emulation = compiled.target().extension().map(TargetExtension::emulation);
        try {
            inWorkDirectory(work -> linkExecutable(compiled.targetMachine(), compiled.module(), compiled.signature(),
                emulation, work, output));
        } catch (IOException e) {
            throw new ByodtException("cannot write " + output + ": " + e.getMessage(), e);
        }
    }

    /** The header beside an output: model.o -> model.h, libnet.so -> libnet.h. */
    public static Path headerPath(Path output) {
        String name = output.getFileName().toString();
        int dot = name.lastIndexOf('.');
        Path header = output.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + ".h");
        if (header.equals(output)) {
            throw new ByodtException("output " + output + " would be overwritten by its own C header: choose another name");
        }
        return header;
    }

    private void linkShared(LLVMTargetMachineRef machine, LLVMModuleRef module, Path work, Path output) throws IOException {
        Path object = work.resolve("model.o");
        emitCode(machine, module, object, LLVMObjectFile);
        BundledTools bundled = tools.get();
        AtomicFiles.write(output, temporary -> {
            ProcessResult linked = bundled.run(List.of(bundled.lld().toString(), "-shared",
                "-soname", output.getFileName().toString(), "-z", "noexecstack", "-o", temporary.toString(), object.toString()));
            if (!linked.succeeded()) {
                throw new ByodtException("cannot link the shared library " + output.getFileName() + ": " + linked.firstErrorLine());
            }
        });
    }

    private void linkExecutable(LLVMTargetMachineRef machine, LLVMModuleRef module, ProgramSignature signature,
                                Optional<TargetExtension.Emulation> emulation, Path work, Path output) throws IOException {
        Path object = work.resolve("model.o");
        emitCode(machine, module, object, LLVMObjectFile);
        Path harness = Files.createDirectory(work.resolve("harness"));
        ExecutableLinker.link(tools.get(), object, signature, take(LLVMGetTargetMachineTriple(machine)),
            take(LLVMGetTargetMachineFeatureString(machine)), emulation, harness, output);
    }

    private static void printModule(LLVMModuleRef module, Path file) throws IOException {
        BytePointer error = new BytePointer();
        if (LLVMPrintModuleToFile(module, file.toString(), error) != 0) {
            throw new IOException(take(error));
        }
    }

    private static void emitCode(LLVMTargetMachineRef machine, LLVMModuleRef module, Path file, int fileType) throws IOException {
        LLVMModuleRef copy = LLVMCloneModule(module);
        try {
            BytePointer error = new BytePointer();
            if (LLVMTargetMachineEmitToFile(machine, copy, new BytePointer(file.toString()), fileType, error) != 0) {
                throw new ByodtException("LLVM cannot generate code for " + file.getFileName() + ": " + take(error));
            }
        } finally {
            LLVMDisposeModule(copy);
        }
    }

    @FunctionalInterface
    private interface WorkStep {
        void run(Path workDirectory) throws IOException;
    }

    /** Runs {@code step} in a fresh temporary directory for intermediate files, deleted afterwards. */
    private static void inWorkDirectory(WorkStep step) throws IOException {
        Path work = TemporaryFiles.createFolder("byodt-emit-");
        try {
            step.run(work);
        } finally {
            TemporaryFiles.delete(work);
        }
    }

    private static String take(BytePointer message) {
        if (message == null || message.isNull()) return "";
        String text = message.getString().strip();
        LLVMDisposeMessage(message);
        return text;
    }
}
