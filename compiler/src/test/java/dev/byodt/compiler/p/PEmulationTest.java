package dev.byodt.compiler.p;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.Targets;
import dev.byodt.compiler.aot.Emitter;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.emulation.EmulatedModel;
import dev.byodt.compiler.emulation.Emulator;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The P instructions that LeNet-5 does not use, run in the executables' SIGILL emulation under qemu (RiscvLeNetTest
 * checks the rest): SCLIP8 and SCLIP16 (Clip to a symmetric range) and the multiplies of Mul (fxp16_P's in 32-bit
 * lanes on riscv64p, fxp8_P's in 16-bit lanes) saturating and wrapping, on riscv64p and riscv32p, must give the
 * host's bits without P.
 */
@Execution(ExecutionMode.CONCURRENT)
class PEmulationTest {
    @ParameterizedTest(name = "{0} in {1} {2} on {3}")
    @CsvSource({"Clip, fxp8_4, saturate, riscv64p", "Clip, fxp8_4, saturate, riscv32p", "Clip, fxp16_13, saturate, riscv32p",
        "Mul, fxp16_13, saturate, riscv64p", "Mul, fxp16_13, wrap, riscv64p",
        "Mul, fxp8_4, saturate, riscv64p", "Mul, fxp8_3, wrap, riscv32p"})
    void pInstructionsUnderQemuGiveTheHostsBits(String op, String datatype, String overflow, String targetName) {
        int fraction = Integer.parseInt(datatype.substring(datatype.indexOf('_') + 1));
        float high = datatype.startsWith("fxp8") ? 8 : 1;
        Graph graph = op.equals("Clip") ? PExtensionTest.clip(6, -high, high - (float) Math.scalb(1.0, -fraction))
            : PExtensionTest.oneNode("Mul", new long[]{16, 1}, new long[]{1, 20});
        Random random = new Random(graph.name().hashCode() + datatype.hashCode());
        List<Tensor> inputs = new ArrayList<>();
        for (var input : graph.inputs()) {
            float[] values = new float[(int) java.util.Arrays.stream(input.type().shape()).reduce(1, (a, b) -> a * b)];
            for (int i = 0; i < values.length; i++) values[i] = (float) (random.nextGaussian() * (i % 5 == 0 ? 3 * high : high / 2));
            inputs.add(Tensor.ofFloats(input.type().shape(), values));
        }
        DatatypeChoice datatypes = DatatypeChoice.float32().withDatatype(datatype).withAccumulation(AccumulationMode.parse("dtype"))
            .withOptions(Map.of("overflow", overflow));
        Target target = Targets.named(targetName);
        float[] emulated, host;
        try (CompiledModule compiled = Compiler.compile(graph, CompileOptions.host().withTarget(target).withDatatypes(datatypes));
             EmulatedModel model = EmulatedModel.build(compiled, Emulator.forTarget(target, Duration.ofMinutes(2)), new Emitter())) {
            assertTrue(compiled.printIr().contains(".insn r "), "no P instruction in the code: the comparison checks nothing of P");
            emulated = model.run(inputs).getFirst().toFloatArray();
        }
        try (CompiledModule compiled = Compiler.compile(graph, CompileOptions.host().withDatatypes(datatypes)); HostModel model = Compiler.jit(compiled)) {
            host = model.run(inputs).getFirst().toFloatArray();
        }
        assertArrayEquals(host, emulated);
    }
}
