package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.runtime.data.IdxSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * float32 training follows PyTorch step by step: the same initial weights (small-cnn.onnx), the same batches
 * of 4 in the same order (the first 400 sample images, 100 steps), and PyTorch's loss at each step
 * (scripts/generate_gradient_references.py), to 1e-4 relative.
 */
class TrainingAgainstPyTorchTest {
    @ParameterizedTest
    @CsvSource({"sgd, 0.05", "adam, 0.001"})
    void lossFollowsPyTorchAtEveryStep(String optimizerName, double learningRate) throws IOException {
        TrainableGraph graph = SampleBatches.smallCnn();
        Optimizer optimizer = new Optimizer(Optimizer.Kind.named(optimizerName), learningRate, 0, 0, 0.9, 0.999, 1e-8);
        List<Double> expected = Files.readAllLines(SampleBatches.TRAINING.resolve(optimizerName + "-losses.txt")).stream()
            .map(Double::parseDouble).toList();
        IdxSource data = SampleBatches.images(400);
        try (Trainer trainer = Trainer.compile(graph, Loss.CROSS_ENTROPY, optimizer, CompileOptions.host())) {
            assertEquals(data.size(), expected.size() * trainer.labels().elementCount());
            for (int step = 0; step < expected.size(); step++) {
                SampleBatches.fill(trainer, data, step);
                float loss = trainer.step();
                double relative = Math.abs(loss - expected.get(step)) / Math.abs(expected.get(step));
                assertTrue(relative <= 1e-4, optimizerName + " step " + (step + 1) + ": loss " + loss + ", PyTorch "
                    + expected.get(step) + " (relative difference " + relative + ")");
            }
        }
    }
}
