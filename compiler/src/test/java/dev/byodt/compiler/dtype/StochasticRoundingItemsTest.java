package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.Targets;
import dev.byodt.compiler.aot.Emitter;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.emulation.EmulatedModel;
import dev.byodt.compiler.emulation.Emulator;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Stochastic rounding's counters number an item's roundings by its place in the run ({@link CallItems}): LeNet-5 on
 * 20 Fashion-MNIST images gives every logit the same bits one item per call, 10 items per call and 20 items per call
 * on 2 threads, in scalar datatypes and in a block datatype (whose activations' elements round stochastically, as
 * its bfloat16 vector operations do, and whose dot products then take rows one at a time); and the first item's
 * index matters, an item run as the first of the run getting other bits than run in its own place. The vision
 * transformer, whose class token is expanded over the batch and folded into a constant at import, gives the same
 * bits one item per call and 2 per call. RISC-V executables under qemu-user, 2 items per call, give the host's bits
 * of one item per call (the schedules of stochastically rounding nodes are the same on every target).
 */
@Execution(ExecutionMode.CONCURRENT)
class StochasticRoundingItemsTest {
    private static final Path MODELS = Path.of(System.getProperty("byodt.modelsDir", "../models"));
    private static final int IMAGES = 20;
    private static final int CLASSES = 10;
    private static final long IMAGE_FLOATS = 28 * 28;

    @ParameterizedTest(name = "{0}, block {1}")
    @CsvSource({"bfloat16, -", "custom[posit]8, -", "fxp16_10, -", "bfloat16, mxfp8e4m3"})
    void everyBatchAndThreadCountGivesTheSameBits(String datatype, String block) {
        CompileOptions options = options(datatype, block);
        float[] oneByOne = logits(options, 1, true);
        assertArrayEquals(oneByOne, logits(options, 10, true), "10 items per call");
        assertArrayEquals(oneByOne, logits(options.withThreads(2), IMAGES, true), "20 items per call on 2 threads");
        assertFalse(Arrays.equals(oneByOne, logits(options, 1, false)), "every item as the run's first: the same bits");
    }

    @Test
    void theVisionTransformersClassTokenRoundsAlikeInEveryBatch() {
        CompileOptions options = options("bfloat16", "-");
        assertArrayEquals(logits("vit-fashion.onnx", 2, options, 1, true), logits("vit-fashion.onnx", 2, options, 2, true));
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"riscv64", "riscv32"})
    void riscvExecutablesGiveTheHostsBits(String targetName) {
        int count = 4, batch = 2;
        CompileOptions options = options("custom[posit]8", "-");
        Target target = Targets.named(targetName);
        Tensor images = IdxReader.readTestSet(MODELS.resolve("fashion-mnist-sample"), count).images();
        long[] shape = {batch, 1, 28, 28};
        float[] riscv = new float[count * CLASSES];
        try (CompiledModule module = Compiler.compile(OnnxLoader.load(MODELS.resolve("lenet5-fashion.onnx"), Map.of("image", shape)),
                 options.withTarget(target));
             EmulatedModel model = EmulatedModel.build(module, Emulator.forTarget(target, Duration.ofMinutes(2)), new Emitter())) {
            for (int first = 0; first < count; first += batch) {
                float[] out = model.run(CallItems.withFirstItem(model.inputs(), List.of(slice(images, first, batch)), first)).getFirst().toFloatArray();
                System.arraycopy(out, 0, riscv, first * CLASSES, batch * CLASSES);
            }
        }
        assertArrayEquals(logits("lenet5-fashion.onnx", count, options, 1, true), riscv);
    }

    private static CompileOptions options(String datatype, String block) {
        CompileOptions options = CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype(datatype)
            .withOptions(Map.of("rounding", "stochastic", StochasticRounding.BITS_OPTION, "8")).withSeed(7));
        if (block.equals("-")) return options;
        return options.withBlocks(new BlockChoice(Optional.of(DatatypeName.parseBlock(block).orElseThrow()), List.of(),
            BlockChoice.Accumulation.FLOAT32));
    }

    private static float[] logits(CompileOptions options, int batch, boolean placed) {
        return logits("lenet5-fashion.onnx", IMAGES, options, batch, placed);
    }

    /** The logits of {@code count} images, {@code batch} images per call, each call told its first item's place, or 0. */
    private static float[] logits(String modelFile, int count, CompileOptions options, int batch, boolean placed) {
        Tensor images = IdxReader.readTestSet(MODELS.resolve("fashion-mnist-sample"), count).images();
        long[] shape = {batch, 1, 28, 28};
        Graph graph = OnnxLoader.load(MODELS.resolve(modelFile), Map.of("image", shape));
        float[] logits = new float[count * CLASSES];
        try (CompiledModule module = Compiler.compile(graph, options); HostModel model = Compiler.jit(module)) {
            assertEquals(CallItems.INPUT, model.inputs().getLast().name(), "the first item's input, last");
            for (int first = 0; first < count; first += batch) {
                Tensor input = slice(images, first, batch);
                float[] out = model.run(CallItems.withFirstItem(model.inputs(), List.of(input), placed ? first : 0)).getFirst().toFloatArray();
                System.arraycopy(out, 0, logits, first * CLASSES, batch * CLASSES);
            }
        }
        return logits;
    }

    /** Images {@code first} .. {@code first + batch - 1}, one call's input. */
    private static Tensor slice(Tensor images, int first, int batch) {
        Tensor input = Tensor.zeros(ElementType.FLOAT32, new long[] {batch, 1, 28, 28});
        MemorySegment.copy(images.data(), first * IMAGE_FLOATS * Float.BYTES, input.data(), 0, batch * IMAGE_FLOATS * Float.BYTES);
        return input;
    }
}
