package dev.byodt.compiler.train;

import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.data.IdxSource;

import java.nio.file.Path;

/** The training tests' model and data: small-cnn.onnx and the sample images of models/, in file order. */
final class SampleBatches {
    static final Path TRAINING = Path.of("src/test/resources/training");
    private static final Path SAMPLE = Path.of("../models/fashion-mnist-sample");

    private SampleBatches() {}

    /** small-cnn.onnx (batch 4) with its float initializers trainable. */
    static TrainableGraph smallCnn() { return trainable("small-cnn.onnx"); }

    /** A model of the training resources with its float initializers trainable. */
    static TrainableGraph trainable(String file) {
        Path model = TRAINING.resolve(file);
        return TrainableGraph.of(OnnxLoader.load(model), OnnxWeights.floatInitializers(model));
    }

    /** The first {@code items} sample images with their labels. */
    static IdxSource images(int items) { return IdxSource.testSet(SAMPLE, items); }

    /** Puts batch number {@code step} (consecutive items) into the trainer's input tensors. */
    static void fill(Trainer trainer, IdxSource data, int step) { fill(trainer.images(), trainer.labels(), data, step); }

    /** Puts batch number {@code step} (consecutive items) into {@code images} and {@code labels}. */
    static void fill(Tensor images, Tensor labels, IdxSource data, int step) {
        long batch = labels.elementCount();
        long itemBytes = images.data().byteSize() / batch;
        for (int i = 0; i < batch; i++) {
            int item = (int) (step * batch + i);
            data.readItem(item, images.data().asSlice(i * itemBytes, itemBytes));
            labels.setLong(i, data.label(item));
        }
    }
}
