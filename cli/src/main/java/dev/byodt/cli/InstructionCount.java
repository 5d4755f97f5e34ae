package dev.byodt.cli;

import dev.byodt.cli.compare.Baseline;
import dev.byodt.cli.compare.Batches;
import dev.byodt.cli.compare.Executor;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.dtype.CallItems;
import dev.byodt.compiler.counts.DynamicCounts;
import dev.byodt.compiler.emulation.EmulatedModel;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import dev.byodt.runtime.TemporaryFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * --count-instructions: the instructions a RISC-V build of the model executes for the first item, per
 * kernel, from qemu's log ({@link DynamicCounts}). The model is compiled for one item per call, whatever the
 * run's batch: qemu logs every executed block, about 200 MB for one LeNet-5 image.
 */
final class InstructionCount {
    private InstructionCount() {}

    static void print(DataOptions.Loaded oneItem, CompileOptions options, Executor.Emulated executor) {
        TensorSpec input = Baseline.singleInput(oneItem.graph());
        Tensor first = Tensor.ofFloats(input.shape(), Batches.of(oneItem.data(), input, null).input(0));
        Path log = null;
        try (CompiledModule module = Compiler.compile(oneItem.graph(), options);
             EmulatedModel model = EmulatedModel.build(module, executor.emulator())) {
            log = TemporaryFiles.createFile("byodt-qemu-", ".log");
            model.run(CallItems.withFirstItem(model.inputs(), List.of(first), 0), DynamicCounts.qemuOptions(log));
            DynamicCounts.Executed executed = DynamicCounts.read(log);
            System.out.printf("%nexecuted instructions, first item, on %s (qemu's in_asm/exec log)%n", executor.target().name());
            for (Map.Entry<String, Long> e : executed.perFunction().entrySet()) {
                if (e.getKey().startsWith("k") || e.getKey().equals(model.entrySymbol())) {
                    System.out.printf("%12d  %s%n", e.getValue(), e.getKey());
                }
            }
            System.out.printf("%12d  total, harness included%n", executed.total());
            executor.target().extension().ifPresent(extension -> System.out.printf("%12d  of them %s instructions, each "
                + "counted once (qemu has no %s: the executable emulated them, in %d instructions not counted)%n",
                executed.undecodable(), extension.name(), extension.name(), executed.emulation()));
        } catch (IOException e) {
            throw new ByodtException("cannot create a log file for qemu: " + e.getMessage(), e);
        } finally {
            TemporaryFiles.delete(log);
        }
    }

}
