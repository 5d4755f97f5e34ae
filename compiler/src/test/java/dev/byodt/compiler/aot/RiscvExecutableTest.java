package dev.byodt.compiler.aot;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.emulation.Emulator;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.compiler.target.Target;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The freestanding harness on riscv64 (rv64gc, lp64d), run under Debian's qemu-riscv64 user emulator (found by
 * Emulator, which names the package qemu-user where it is missing).
 */
class RiscvExecutableTest {
    @TempDir
    Path work;

    @Test
    void aConvModelBuiltForRiscv64RunsUnderQemuLikeTheHostJit() throws Exception {
        Path dir = Path.of(System.getProperty("byodt.onnxNodeDir"), "test_conv_with_strides_padding");
        List<Path> inputFiles = List.of(dir.resolve("test_data_set_0/input_0.pb"), dir.resolve("test_data_set_0/input_1.pb"));
        var graph = OnnxLoader.load(dir.resolve("model.onnx"));
        Target riscv64 = new Target("riscv64",
            "riscv64-unknown-linux-gnu", "generic-rv64", "+m,+a,+f,+d,+c");
        Path exe = work.resolve("conv-rv64");
        try (CompiledModule compiled = Compiler.compile(graph, CompileOptions.host().withTarget(riscv64))) {
            new Emitter(BundledTools.locate(work.resolve("cache"))).emit(EmitKind.EXE, compiled, exe);
        }
        Emulator.forTarget(riscv64, Duration.ofSeconds(60)).run(exe, List.of(),
            List.of("-o", work.toString(), inputFiles.get(0).toString(), inputFiles.get(1).toString()), work);
        float[] riscv = TensorProtos.read(work.resolve("output_0.pb")).tensor().toFloatArray();

        List<Tensor> inputs = inputFiles.stream().map(f -> TensorProtos.read(f).tensor()).toList();
        try (CompiledModule host = Compiler.compile(graph, CompileOptions.host()); HostModel jit = Compiler.jit(host)) {
            float[] expected = jit.run(inputs).getFirst().toFloatArray();
            // Both targets round every float32 add and multiply; only the order of a few sums may differ.
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], riscv[i], 1e-5f * Math.max(1f, Math.abs(expected[i])), "element " + i);
            }
        }
        byte[] elf = Files.readAllBytes(exe);
        assertEquals(243, (elf[18] & 0xFF) | (elf[19] & 0xFF) << 8, "e_machine is EM_RISCV");
    }
}
