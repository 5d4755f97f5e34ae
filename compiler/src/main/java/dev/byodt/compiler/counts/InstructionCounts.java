package dev.byodt.compiler.counts;

import dev.byodt.compiler.aot.EmitKind;
import dev.byodt.compiler.aot.Emitter;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ByodtException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Static instruction counts of a model compiled for RISC-V, per function of its object file: one function
 * per kernel (named kN.Op.node), the entry point, and whatever library code stayed out of line. P
 * instructions are the 32-bit words under the target's P opcode.
 */
public final class InstructionCounts {
    /** One function's instructions: all of them, the compressed (16-bit) ones, and the P ones. */
    public record FunctionCount(String function, int instructions, int compressed, int pInstructions) {}

    private InstructionCounts() {}

    public static List<FunctionCount> of(CompiledModule compiled) {
        Target target = compiled.target();
        if (!target.isRiscv()) {
            throw new ByodtException("instruction counts are for RISC-V targets: --target " + target.name() + " is not one");
        }
        try {
            Path directory = Files.createTempDirectory("byodt-stats-");
            Path object = directory.resolve("model.o");
            try {
                new Emitter().emit(EmitKind.OBJ, compiled, object);
                return count(ElfFunctions.read(Files.readAllBytes(object), object.toString()), target.pOpcode());
            } finally {
                Files.deleteIfExists(object);
                Files.deleteIfExists(Emitter.headerPath(object));
                Files.deleteIfExists(directory);
            }
        } catch (IOException e) {
            throw new ByodtException("cannot count the instructions of the " + target.name() + " code: " + e.getMessage(), e);
        }
    }

    static List<FunctionCount> count(List<ElfFunctions.Function> functions, int pOpcode) {
        List<FunctionCount> counts = new ArrayList<>();
        for (ElfFunctions.Function f : functions) {
            int all = 0, compressed = 0, p = 0;
            for (int instruction : RiscvInstructions.split(f.code())) {
                all++;
                if (RiscvInstructions.isCompressed(instruction)) compressed++;
                else if (pOpcode != 0 && RiscvInstructions.opcode(instruction) == pOpcode) p++;
            }
            counts.add(new FunctionCount(f.name(), all, compressed, p));
        }
        return counts;
    }
}
