package dev.byodt.compiler.train;

import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import dev.byodt.runtime.data.IdxSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

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

    /**
     * The inputs of a training step of {@code graph} with Adam ({@code specs}, the step's input specs): the first
     * batch of sample images and their labels, the model's weights, Adam's state (small moments) and the first
     * step's scalars.
     */
    static List<Tensor> adamStepInputs(List<TensorSpec> specs, TrainableGraph graph, Optimizer adam) {
        IdxSource data = images((int) specs.get(1).shape()[0]);
        Map<String, Tensor> weights = new LinkedHashMap<>();
        graph.weights().forEach((v, t) -> weights.put(v.name(), t));
        Random random = new Random(7);
        List<Tensor> inputs = new ArrayList<>();
        for (TensorSpec spec : specs) {
            Tensor t = Tensor.zeros(spec.type(), spec.shape());
            if (inputs.isEmpty()) {
                long itemBytes = t.data().byteSize() / data.size();
                for (int i = 0; i < data.size(); i++) data.readItem(i, t.data().asSlice(i * itemBytes, itemBytes));
            } else if (inputs.size() == 1) {
                for (int i = 0; i < data.size(); i++) t.setLong(i, data.label(i));
            } else if (weights.containsKey(spec.name())) {
                t = weights.get(spec.name());
            } else if (spec.name().equals(TrainingStep.STEP_SCALARS)) {
                float[] scalars = adam.stepScalars(1);
                for (int i = 0; i < scalars.length; i++) t.setFloat(i, scalars[i]);
            } else {
                for (long i = 0; i < t.elementCount(); i++) t.setFloat(i, random.nextInt(64) / 4096f);
            }
            inputs.add(t);
        }
        return inputs;
    }
}
