package dev.byodt.compiler.emulation;

import dev.byodt.compiler.aot.Emitter;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.LoadedModel;
import dev.byodt.compiler.codegen.ProgramSignature;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import dev.byodt.runtime.TensorSpec;
import dev.byodt.runtime.TemporaryFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A model compiled for RISC-V, linked into a static executable and run under qemu-user: the counterpart of
 * the host's JIT-loaded model, so that accuracy is measured on the target's own code. Each run writes the
 * inputs as TensorProto files, runs the executable once and reads its output_N.pb files back.
 */
public final class EmulatedModel implements LoadedModel {
    private final ProgramSignature signature;
    private final Emulator emulator;
    private final Path directory;
    private final Path executable;

    private EmulatedModel(ProgramSignature signature, Emulator emulator, Path directory, Path executable) {
        this.signature = signature;
        this.emulator = emulator;
        this.directory = directory;
        this.executable = executable;
    }

    /** Links {@code compiled} (for a RISC-V target) into an executable in a temporary folder, deleted by close. */
    public static EmulatedModel build(CompiledModule compiled, Emulator emulator) {
        return build(compiled, emulator, new Emitter());
    }

    public static EmulatedModel build(CompiledModule compiled, Emulator emulator, Emitter emitter) {
        Path directory;
        try {
            directory = TemporaryFiles.createFolder("byodt-" + compiled.target().name() + "-");
        } catch (IOException e) {
            throw new ByodtException("cannot create a temporary folder for the " + compiled.target().name() + " executable: " + e.getMessage(), e);
        }
        Path executable = directory.resolve("model-" + compiled.target().name());
        try {
            emitter.emitForEmulator(compiled, executable);
        } catch (RuntimeException e) {
            TemporaryFiles.delete(directory);
            throw e;
        }
        return new EmulatedModel(compiled.signature(), emulator, directory, executable);
    }

    @Override
    public List<TensorSpec> inputs() { return signature.inputs(); }

    @Override
    public List<TensorSpec> outputs() { return signature.outputs(); }

    public Path executable() { return executable; }

    /** The model's exported C function (its kernels are the functions named kN.Op.node). */
    public String entrySymbol() { return signature.entrySymbol(); }

    /** Runs the executable once on {@code inputs} (in the order of {@link #inputs()}); returns the outputs. */
    @Override
    public List<Tensor> run(List<Tensor> inputs) {
        return run(inputs, List.of()).outputs();
    }

    /** The outputs of a run, and what qemu logged (with {@code qemuOptions} such as "-d in_asm"). */
    public record Result(List<Tensor> outputs, Emulator.Run run) {}

    /** Each run has a folder of its own, so several may go on at once, a qemu process each. */
    public Result run(List<Tensor> inputs, List<String> qemuOptions) {
        if (inputs.size() != signature.inputs().size()) {
            throw new ByodtException("the model takes " + signature.inputs().size() + " inputs, not " + inputs.size());
        }
        try {
            Path runDirectory = Files.createTempDirectory(directory, "run-");
            List<String> arguments = new ArrayList<>(List.of("-o", runDirectory.toString()));
            for (int i = 0; i < inputs.size(); i++) {
                Path file = runDirectory.resolve("input_" + i + ".pb");
                TensorProtos.write(file, new NamedTensor(signature.inputs().get(i).name(), inputs.get(i)));
                arguments.add(file.toString());
            }
            Emulator.Run run = emulator.run(executable, qemuOptions, arguments, runDirectory);
            List<Tensor> outputs = new ArrayList<>();
            for (int i = 0; i < signature.outputs().size(); i++) {
                outputs.add(TensorProtos.read(runDirectory.resolve("output_" + i + ".pb")).tensor());
            }
            TemporaryFiles.delete(runDirectory);
            return new Result(outputs, run);
        } catch (IOException e) {
            throw new ByodtException("cannot run " + executable.getFileName() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() { TemporaryFiles.delete(directory); }
}
