package dev.byodt.compiler.counts;

import dev.byodt.compiler.aot.EmitKind;
import dev.byodt.compiler.aot.Emitter;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.target.Target;
import dev.byodt.compiler.target.TargetExtension;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.TemporaryFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Static instruction counts of a model compiled for RISC-V, per function of its object file: one function
 * per kernel (named kN.Op.node), the entry point, and whatever library code stayed out of line. The
 * instructions of the target's extension (P) are the 32-bit words under its major opcode.
 */
public final class InstructionCounts {
    /** One function's instructions: all of them, the compressed (16-bit) ones, and the extension's (P) ones. */
    public record FunctionCount(String function, int instructions, int compressed, int extensionInstructions) {}

    private InstructionCounts() {}

    public static List<FunctionCount> of(CompiledModule compiled) {
        Target target = compiled.target();
        if (!target.isRiscv()) {
            throw new ByodtException("instruction counts are for RISC-V targets: --target " + target.name() + " is not one");
        }
        try {
            Path directory = TemporaryFiles.createFolder("byodt-stats-");
            Path object = directory.resolve("model.o");
            try {
                new Emitter().emit(EmitKind.OBJ, compiled, object);
                return count(ElfFunctions.read(Files.readAllBytes(object), object.toString()), target.extension().map(TargetExtension::opcode).orElse(0));
            } finally {
                TemporaryFiles.delete(directory);
            }
        } catch (IOException e) {
            throw new ByodtException("cannot count the instructions of the " + target.name() + " code: " + e.getMessage(), e);
        }
    }

    /** The counts of {@code functions}; {@code extensionOpcode} is the extension's major opcode, 0 without one. */
    static List<FunctionCount> count(List<ElfFunctions.Function> functions, int extensionOpcode) {
        List<FunctionCount> counts = new ArrayList<>();
        for (ElfFunctions.Function f : functions) {
            int all = 0, compressed = 0, extension = 0;
            for (int instruction : RiscvInstructions.split(f.code())) {
                all++;
                if (RiscvInstructions.isCompressed(instruction)) compressed++;
                else if (extensionOpcode != 0 && RiscvInstructions.opcode(instruction) == extensionOpcode) extension++;
            }
            counts.add(new FunctionCount(f.name(), all, compressed, extension));
        }
        return counts;
    }
}
