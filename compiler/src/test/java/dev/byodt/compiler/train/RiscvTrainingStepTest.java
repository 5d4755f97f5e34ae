package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.Targets;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.emulation.EmulatedModel;
import dev.byodt.compiler.emulation.Emulator;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A training step compiles for RISC-V as for the host, through the same lowering, library inlining and code
 * generation in the target's own schedules: one step of the small CNN (Conv, Tanh, pools, Gemm, Relu, the loss
 * and Adam) at batch 4, run under qemu-user, gives the host's step. Posits and fixed point are integer
 * arithmetic, exactly rounded on every path, so every output (loss, logits, updated weights, Adam's moments, the
 * gradient and update counts) has the host's bits. One case, the cheapest to build (about 5 s; posit16 on riscv64
 * took 20 s beside other tests), in the default test run (when this was written, posit16 on riscv64 and bfloat16 on
 * riscv32f gave the host's bits as well, and float32 on riscv64 the host's values within 1e-5 relative).
 */
@Execution(ExecutionMode.CONCURRENT)
class RiscvTrainingStepTest {
    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"fxp16_13, riscv32"})
    void aTrainingStepOnRiscvGivesTheHostsStep(String datatype, String targetName) {
        TrainableGraph graph = SampleBatches.smallCnn();
        Optimizer adam = new Optimizer(Optimizer.Kind.ADAM, 0.001, 0, 0, 0.9, 0.999, 1e-8);
        Target target = Targets.named(targetName);
        CompileOptions riscvOptions = CompileOptions.host().withTarget(target).withDatatype(datatype);
        CompileOptions hostOptions = CompileOptions.host().withDatatype(datatype);
        Program riscvStep = TrainingStep.of(graph, Loss.CROSS_ENTROPY, adam, LossScaling.NONE, Optional.of(Compiler.arithmeticOf(riscvOptions)));
        Program hostStep = TrainingStep.of(graph, Loss.CROSS_ENTROPY, adam, LossScaling.NONE, Optional.of(Compiler.arithmeticOf(hostOptions)));
        List<Tensor> inputs = SampleBatches.adamStepInputs(hostStep.inputSpecs(), graph, adam);
        List<Tensor> riscv, host;
        try (CompiledModule compiled = Compiler.compile(riscvStep, riscvOptions);
             EmulatedModel step = EmulatedModel.build(compiled, Emulator.forTarget(target, Duration.ofMinutes(2)))) {
            riscv = step.run(inputs);
        }
        try (CompiledModule compiled = Compiler.compile(hostStep, hostOptions); HostModel step = Compiler.jit(compiled)) {
            host = step.run(inputs);
        }
        assertEquals(host.size(), riscv.size(), "outputs");
        for (int i = 0; i < host.size(); i++) {
            String what = hostStep.outputSpecs().get(i).name();
            if (host.get(i).type() == ElementType.INT64) {
                assertArrayEquals(host.get(i).toLongArray(), riscv.get(i).toLongArray(), what);
            } else {
                assertArrayEquals(host.get(i).toFloatArray(), riscv.get(i).toFloatArray(), what + ": the same bits on every target");
            }
        }
    }
}
