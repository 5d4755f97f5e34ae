package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import dev.byodt.runtime.data.IdxSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static dev.byodt.compiler.train.CloseFloats.assertClose;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BatchNormalization in training, on bn-cnn.onnx (two BatchNorm2d and a BatchNorm1d, exported from PyTorch in
 * inference mode) and PyTorch's run of it (scripts/generate_gradient_references.py): float32 training by SGD in
 * batches of 8 follows PyTorch's loss at each of 50 steps, normalizing by the batches' statistics; the running
 * statistics end as PyTorch's (unbiased variance, ONNX momentum); and the trained model, written as ONNX and
 * compiled for inference, gives PyTorch's eval() output, normalizing by the running statistics. In bfloat16, float16
 * and posit(16,2) the trained weights and statistics are values of the format ({@link DatatypeValues}); with float32
 * master weights the running statistics are kept in float32 too.
 */
@Execution(ExecutionMode.CONCURRENT)
class BatchNormalizationTrainingTest {
    private static final String MODEL = "bn-cnn.onnx";
    private static final Optimizer SGD = new Optimizer(Optimizer.Kind.SGD, 0.01, 0, 0, 0.9, 0.999, 1e-8);
    private static final String[] STATISTICS = {"bn1.running_mean", "bn1.running_var", "bn2.running_mean",
        "bn2.running_var", "bn3.running_mean", "bn3.running_var"};
    /** 50 steps of float32 sums in another order than PyTorch's leave differences of a few parts in 10^5. */
    private static final double TOLERANCE = 1e-4;

    @Test
    void trainingFollowsPyTorchAndTheTrainedModelInfersWithTheRunningStatistics(@TempDir Path out) throws IOException {
        List<Double> expected = Files.readAllLines(SampleBatches.TRAINING.resolve("bn-sgd-losses.txt")).stream()
            .map(Double::parseDouble).toList();
        IdxSource data = SampleBatches.images(408);
        Map<String, Tensor> initializers;
        try (Trainer trainer = Trainer.compile(SampleBatches.trainable(MODEL), Loss.CROSS_ENTROPY, SGD, CompileOptions.host())) {
            Map<String, Tensor> initial = trainer.initializers();
            for (int step = 0; step < expected.size(); step++) {
                SampleBatches.fill(trainer, data, step);
                float loss = trainer.step();
                double relative = Math.abs(loss - expected.get(step)) / Math.abs(expected.get(step));
                assertTrue(relative <= 1e-4, "step " + (step + 1) + ": loss " + loss + ", PyTorch " + expected.get(step)
                    + " (relative difference " + relative + ")");
            }
            initializers = trainer.initializers();
            for (String name : STATISTICS) {
                float[] pytorch = reference("bn-trained-" + name + ".pb");
                assertFalse(Arrays.equals(initial.get(name).toFloatArray(), pytorch), name + " moved");
                assertClose(pytorch, initializers.get(name).toFloatArray(), TOLERANCE, name);
            }
            fillNextImages(trainer.predictionInput(), data);
            assertClose(reference("bn-trained-logits.pb"), trainer.predict(0).toFloatArray(), TOLERANCE, "prediction");
        }
        Path written = out.resolve("model.onnx");
        OnnxWeights.write(SampleBatches.TRAINING.resolve(MODEL), initializers, written);
        try (CompiledModule code = Compiler.compile(OnnxLoader.load(written), CompileOptions.host());
             HostModel model = Compiler.jit(code)) {
            Tensor input = Tensor.zeros(ElementType.FLOAT32, new long[]{8, 1, 28, 28});
            fillNextImages(input, data);
            assertClose(reference("bn-trained-logits.pb"), model.run(List.of(input)).getFirst().toFloatArray(), TOLERANCE,
                "written model");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bfloat16", "float16", "custom[posit]16"})
    void weightsAndStatisticsAreValuesOfTheDatatype(String datatype) {
        IdxSource data = SampleBatches.images(8 * 3);
        List<Float> losses = new ArrayList<>();
        try (Trainer trainer = Trainer.compile(SampleBatches.trainable(MODEL), Loss.CROSS_ENTROPY, SGD,
            CompileOptions.host().withDatatype(datatype))) {
            for (int step = 0; step < 3; step++) {
                SampleBatches.fill(trainer, data, step);
                losses.add(trainer.step());
            }
            losses.forEach(loss -> assertTrue(Float.isFinite(loss), datatype + " losses " + losses));
            trainer.initializers().forEach((name, value) -> {
                for (float v : value.toFloatArray()) {
                    assertTrue(DatatypeValues.representable(datatype, v), datatype + " " + name + " " + v);
                }
            });
        }
    }

    @Test
    void float32MasterWeightsKeepTheRunningStatisticsInFloat32() {
        IdxSource data = SampleBatches.images(8);
        try (Trainer trainer = Trainer.compile(SampleBatches.trainable(MODEL), Loss.CROSS_ENTROPY, SGD,
            MasterWeights.inFloat32(CompileOptions.host().withDatatype("bfloat16")))) {
            SampleBatches.fill(trainer, data, 0);
            trainer.step();
            Map<String, Tensor> initializers = trainer.initializers();
            for (String name : STATISTICS) {
                float[] values = initializers.get(name).toFloatArray();
                assertTrue(IntStream.range(0, values.length).anyMatch(i -> !DatatypeValues.representable("bfloat16", values[i])),
                    name + " stayed on bfloat16's grid: " + Arrays.toString(values));
            }
        }
    }

    /** The 8 sample images after the 400 trained on, which PyTorch's eval() output is of. */
    private static void fillNextImages(Tensor input, IdxSource data) {
        long itemBytes = input.data().byteSize() / 8;
        for (int i = 0; i < 8; i++) data.readItem(400 + i, input.data().asSlice(i * itemBytes, itemBytes));
    }

    private static float[] reference(String file) {
        return TensorProtos.read(SampleBatches.TRAINING.resolve(file)).tensor().toFloatArray();
    }
}
