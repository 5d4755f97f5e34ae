package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.data.IdxSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * float32 training follows PyTorch step by step: the same initial weights (small-cnn.onnx), the same batches
 * of 4 in the same order (the first 400 sample images, 100 steps), and PyTorch's loss at each step
 * (scripts/generate_gradient_references.py), to 1e-4 relative.
 */
class TrainingAgainstPyTorchTest {
    private static final Path TRAINING = Path.of("src/test/resources/training");
    private static final Path SAMPLE = Path.of("../models/fashion-mnist-sample");

    @ParameterizedTest
    @CsvSource({"sgd, 0.05", "adam, 0.001"})
    void lossFollowsPyTorchAtEveryStep(String optimizerName, double learningRate) throws IOException {
        Path model = TRAINING.resolve("small-cnn.onnx");
        TrainableGraph graph = TrainableGraph.of(OnnxLoader.load(model), OnnxWeights.floatInitializers(model));
        Optimizer optimizer = new Optimizer(Optimizer.Kind.named(optimizerName), learningRate, 0, 0, 0.9, 0.999, 1e-8);
        List<Double> expected = Files.readAllLines(TRAINING.resolve(optimizerName + "-losses.txt")).stream()
            .map(Double::parseDouble).toList();
        IdxSource data = IdxSource.testSet(SAMPLE, 400);
        try (Trainer trainer = Trainer.compile(graph, Loss.CROSS_ENTROPY, optimizer, CompileOptions.host())) {
            long batch = trainer.labels().elementCount();
            assertEquals(data.size(), expected.size() * batch);
            long itemBytes = trainer.images().data().byteSize() / batch;
            for (int step = 0; step < expected.size(); step++) {
                for (int i = 0; i < batch; i++) {
                    int item = (int) (step * batch + i);
                    data.readItem(item, trainer.images().data().asSlice(i * itemBytes, itemBytes));
                    trainer.labels().setLong(i, data.label(item));
                }
                float loss = trainer.step();
                double relative = Math.abs(loss - expected.get(step)) / Math.abs(expected.get(step));
                assertTrue(relative <= 1e-4, optimizerName + " step " + (step + 1) + ": loss " + loss + ", PyTorch "
                    + expected.get(step) + " (relative difference " + relative + ")");
            }
        }
    }
}
