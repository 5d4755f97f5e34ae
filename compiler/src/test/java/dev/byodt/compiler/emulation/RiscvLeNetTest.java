package dev.byodt.compiler.emulation;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.Targets;
import dev.byodt.compiler.aot.Emitter;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.*;

/**
 * LeNet-5 on 4 Fashion-MNIST images (every layer and 40 logits: more images would add qemu time, not code),
 * compiled for RISC-V and run under qemu-user, against the same model JIT-compiled for the host: fixed point and posits are integer arithmetic (posit16's operations are correctly
 * rounded on every path: float32 with its exact error, double rounded once, soft-float or integer on riscv32),
 * and minifloats round every result once whether through F16C on the host or integer code on RISC-V, so every
 * logit must have the same bits; float32 may differ only by the order of a few roundings. The P targets'
 * executables run their P instructions through the SIGILL emulation (qemu has no P) and are compared with the
 * host's code without P; their code must have P instructions, or the comparison would check nothing of P.
 */
@Execution(ExecutionMode.CONCURRENT)
class RiscvLeNetTest {
    private static final Path MODELS = Path.of(System.getProperty("byodt.modelsDir", "../models"));
    private static final int IMAGES = 4;

    /**
     * The host's logits by datatype and accumulation, computed once: the targets in one datatype compare with the
     * same host model, so the cases share its compilation.
     */
    private static final Map<String, float[]> HOST_LOGITS = new ConcurrentHashMap<>();

    /** The model, loaded for each compilation: compiling may annotate the graph, and cases run concurrently. */
    private static Graph graph() {
        return OnnxLoader.load(MODELS.resolve("lenet5-fashion.onnx"), Map.of("image", new long[]{IMAGES, 1, 28, 28}));
    }

    private static Tensor images() {
        return IdxReader.readTestSet(MODELS.resolve("fashion-mnist-sample"), IMAGES).images();
    }

    private static float[] hostLogits(String datatype, String accumulate) {
        try (CompiledModule compiled = Compiler.compile(graph(), CompileOptions.host().withDatatypes(choice(datatype, accumulate)));
             HostModel model = Compiler.jit(compiled)) {
            return model.run(List.of(images())).getFirst().toFloatArray();
        }
    }

    private static DatatypeChoice choice(String datatype, String accumulate) {
        return DatatypeChoice.float32().withDatatype(datatype).withAccumulation(AccumulationMode.parse(accumulate));
    }

    @ParameterizedTest(name = "{0} --accumulate {2} on {1}")
    @CsvSource({"fxp16_13, riscv64, dtype", "fxp16_13, riscv32, dtype", "float32, riscv64, dtype", "float32, riscv32, dtype",
        "fxp16_13, riscv32f, dtype", "fxp16_13, riscv64, exact", "fxp16_13, riscv32, exact",
        "custom[posit]16, riscv64, dtype", "custom[posit]16, riscv32, dtype", "custom[posit]16, riscv32f, dtype",
        "float16, riscv64, dtype", "float16, riscv32, dtype", "bfloat16, riscv32f, dtype",
        "fxp16_13, riscv64p, dtype", "fxp16_13, riscv64p, exact", "fxp16_13, riscv32p, exact",
        "fxp8_4, riscv64p, dtype", "fxp8_4, riscv64p, exact", "fxp8_4, riscv32p, exact", "fxp16_13, riscv32p, dtype", "fxp8_4, riscv32p, dtype"})
    void logitsOnRiscvMatchTheHost(String datatype, String targetName, String accumulate) {
        float[] riscv;
        Target target = Targets.named(targetName);
        try (CompiledModule compiled = Compiler.compile(graph(), CompileOptions.host().withTarget(target).withDatatypes(choice(datatype, accumulate)));
             EmulatedModel model = EmulatedModel.build(compiled, Emulator.forTarget(target, Duration.ofMinutes(2)),
                 new Emitter())) {
            if (target.extension().isPresent()) {
                assertTrue(compiled.printIr().contains(".insn r "), "no P instruction in the code: the comparison checks nothing of P");
            }
            riscv = model.run(List.of(images())).getFirst().toFloatArray();
        }
        float[] host = HOST_LOGITS.computeIfAbsent(datatype + " --accumulate " + accumulate, key -> hostLogits(datatype, accumulate));
        assertEquals(IMAGES * 10, riscv.length);
        if (!datatype.equals("float32")) {
            assertArrayEquals(host, riscv, "fixed point, posits and minifloats are exactly rounded: the same bits on every target");
        } else {
            for (int i = 0; i < host.length; i++) {
                assertEquals(host[i], riscv[i], 1e-5f * Math.max(1f, Math.abs(host[i])), "logit " + i);
            }
        }
    }

    /**
     * float32 with --multiply-add fused: llvm.fma rounds once wherever it runs (fmadd.s on riscv64 and riscv32f, the
     * harness's fmaf in integer code on riscv32, vfmadd on the host), so every logit has the host's bits.
     */
    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"riscv64", "riscv32", "riscv32f"})
    void fusedMultiplyAddsGiveTheHostsBitsOnRiscv(String targetName) {
        Target target = Targets.named(targetName);
        CompileOptions fused = CompileOptions.host().withMultiplyAdd(MultiplyAdd.FUSED);
        float[] riscv;
        try (CompiledModule compiled = Compiler.compile(graph(), fused.withTarget(target));
             EmulatedModel model = EmulatedModel.build(compiled, Emulator.forTarget(target, Duration.ofMinutes(2)), new Emitter())) {
            riscv = model.run(List.of(images())).getFirst().toFloatArray();
        }
        float[] host = HOST_LOGITS.computeIfAbsent("float32 --multiply-add fused", key -> {
            try (CompiledModule compiled = Compiler.compile(graph(), fused); HostModel model = Compiler.jit(compiled)) {
                return model.run(List.of(images())).getFirst().toFloatArray();
            }
        });
        assertArrayEquals(host, riscv);
    }
}
