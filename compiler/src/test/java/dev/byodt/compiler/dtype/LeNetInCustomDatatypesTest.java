package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.LabeledImages;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LeNet-5 on the sample images in the test datatypes, against float32 on the same images: a 16-bit format
 * with 8 significant bits keeps the classifier's accuracy within a few points, Q8.8 fixed point too. Neither
 * test library has tanh, so it falls back to float32.
 */
@Execution(ExecutionMode.CONCURRENT)
class LeNetInCustomDatatypesTest {
    private static final Path MODELS = Path.of(System.getProperty("byodt.modelsDir", "../models"));
    private static final int IMAGES = 200;
    private static final int BATCH = 8;

    @Test
    void truncatedFloatKeepsTheAccuracy() {
        double float32 = accuracy(CompileOptions.host());
        double t16 = accuracy(in("custom[t16]16", AccumulationMode.DTYPE));
        double t16Float32Sums = accuracy(in("custom[t16]16", AccumulationMode.FLOAT32));
        System.out.printf("LeNet-5 on %d images: float32 %.3f, t16 %.3f, t16 with float32 sums %.3f%n", IMAGES, float32, t16, t16Float32Sums);
        assertTrue(Math.abs(float32 - t16) <= 0.05, "t16 " + t16 + " vs float32 " + float32);
        assertTrue(Math.abs(float32 - t16Float32Sums) <= 0.03, "t16, float32 sums " + t16Float32Sums + " vs float32 " + float32);
    }

    @Test
    void fixedPointInEveryAccumulationMode() {
        double float32 = accuracy(CompileOptions.host());
        for (AccumulationMode mode : AccumulationMode.simpleModes()) {
            double q8 = accuracy(in("custom[q8]16", mode));
            System.out.printf("LeNet-5 on %d images in q8, accumulate %s: %.3f (float32 %.3f)%n", IMAGES, mode.optionName(), q8, float32);
            assertTrue(Math.abs(float32 - q8) <= 0.05, "q8 " + mode + ": " + q8 + " vs float32 " + float32);
        }
    }

    /**
     * Exact accumulation in the built-in IEEE-style formats: their accumulators keep NaN and infinity flags beside
     * the number, so a pooling sum must add values through the library, not add accumulators as integers.
     */
    @Test
    void builtInFloatsAccumulateExactly() {
        double float32 = accuracy(CompileOptions.host());
        for (String datatype : new String[] {"bfloat16", "float16", "custom[fp8e5m2]8"}) {
            double exact = accuracy(in(datatype, AccumulationMode.EXACT));
            assertTrue(Math.abs(exact - float32) <= 0.05, datatype + " exact: " + exact + " against float32 " + float32);
        }
    }

    private static CompileOptions in(String datatype, AccumulationMode mode) {
        return CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype(datatype).withAccumulation(mode)
            .withFallbackToFloat32(true));
    }

    static double accuracy(CompileOptions options) {
        Path model = MODELS.resolve("lenet5-fashion.onnx");
        LabeledImages data = IdxReader.readTestSet(MODELS.resolve("fashion-mnist-sample"), IMAGES);
        long[] shape = {BATCH, 1, 28, 28};
        long imageFloats = 28 * 28;
        Graph graph = OnnxLoader.load(model, Map.of("image", shape));
        int correct = 0;
        try (CompiledModule module = Compiler.compile(graph, options); HostModel byodt = Compiler.jit(module)) {
            for (int first = 0; first < IMAGES; first += BATCH) {
                Tensor batch = Tensor.zeros(ElementType.FLOAT32, shape);
                MemorySegment.copy(data.images().data(), first * imageFloats * 4, batch.data(), 0, BATCH * imageFloats * 4);
                float[] logits = byodt.run(List.of(batch)).get(0).toFloatArray();
                for (int i = 0; i < BATCH; i++) {
                    int best = 0;
                    for (int c = 1; c < 10; c++) if (logits[i * 10 + c] > logits[i * 10 + best]) best = c;
                    if (best == data.labels()[first + i]) correct++;
                }
            }
        }
        return (double) correct / IMAGES;
    }
}
