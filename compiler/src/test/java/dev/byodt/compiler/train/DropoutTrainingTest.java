package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.graph.Node;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import dev.byodt.runtime.TensorSpec;
import dev.byodt.runtime.data.IdxSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dropout in training, on bn-dropout-cnn.onnx (bn-cnn with a Dropout of ratio 0.5 before its last Gemm): the
 * training step multiplies by a mask input (so Mul's gradient, checked against PyTorch, carries dY back through
 * the same mask), and fed PyTorch's masks it follows PyTorch's training; the masks drop the ratio of elements and
 * scale the rest by 1 / (1 - ratio); the same seed gives the same masks and so the same bits, each step a new mask;
 * and prediction is the model without Dropout.
 */
class DropoutTrainingTest {
    private static final String MODEL = "bn-dropout-cnn.onnx";
    /** With a learning rate of 0 the weights stay as they are, so that only the masks change from step to step. */
    private static final Optimizer STILL = new Optimizer(Optimizer.Kind.SGD, 0, 0, 0, 0.9, 0.999, 1e-8);

    @Test
    void theTrainingGraphMultipliesByAMaskInput() {
        TrainingModeGraph training = TrainingModeGraph.of(SampleBatches.trainable(MODEL).graph());
        Node dropout = training.graph().nodes().stream().filter(n -> n.name().equals("dropout")).findFirst().orElseThrow();
        assertEquals("Mul", dropout.opType());
        assertEquals(TrainingModeGraph.MASK + "dropout", dropout.input(1).name());
        assertTrue(training.graph().inputs().contains(dropout.input(1)));
        assertEquals(1, training.dropouts().size());
        assertEquals(0.5, training.dropouts().getFirst().ratio());
        assertEquals(3, training.batchNormalizations().size());
        training.batchNormalizations().forEach(bn -> assertEquals(1, bn.intAttr("training_mode", 0), bn.name()));
    }

    @Test
    void masksDropTheRatioAndScaleTheRest() {
        int n = 100_000;
        double ratio = 0.3;
        Tensor first = Tensor.zeros(ElementType.FLOAT32, new long[]{n}), second = Tensor.zeros(ElementType.FLOAT32, new long[]{n});
        DropoutMasks masks = new DropoutMasks(11);
        masks.fill(first, ratio);
        masks.fill(second, ratio);
        long dropped = 0;
        for (float v : first.toFloatArray()) {
            if (v == 0) dropped++;
            else assertEquals((float) (1 / 0.7), v);
        }
        // Binomial(n, 0.3): a standard deviation of 145 elements; 5 of them either way.
        assertTrue(Math.abs(dropped - n * ratio) < 5 * Math.sqrt(n * ratio * (1 - ratio)), dropped + " dropped");
        assertFalse(Arrays.equals(first.toFloatArray(), second.toFloatArray()), "each fill a new mask");
        Tensor again = Tensor.zeros(ElementType.FLOAT32, new long[]{n});
        new DropoutMasks(11).fill(again, ratio);
        assertArrayEquals(first.toFloatArray(), again.toFloatArray(), "the same seed, the same mask");
    }

    @Test
    void theSameSeedGivesTheSameLossesAndEachStepANewMask() {
        try (Trainer trainer = Trainer.compile(SampleBatches.trainable(MODEL), Loss.CROSS_ENTROPY, STILL, CompileOptions.host())) {
            List<Float> first = losses(trainer, 3), again = losses(trainer, 3), otherSeed = losses(trainer, 4);
            assertEquals(first, again);
            assertNotEquals(first, otherSeed);
            // The same batch and the same weights at every step: only the mask changes the loss.
            assertNotEquals(first.get(0), first.get(1));
            assertNotEquals(first.get(1), first.get(2));
        }
    }

    @Test
    void predictionIsTheModelWithoutDropout() {
        IdxSource data = SampleBatches.images(8);
        try (Trainer withDropout = Trainer.compile(SampleBatches.trainable(MODEL), Loss.CROSS_ENTROPY, STILL, CompileOptions.host());
             Trainer without = Trainer.compile(SampleBatches.trainable("bn-cnn.onnx"), Loss.CROSS_ENTROPY, STILL, CompileOptions.host())) {
            for (Trainer t : List.of(withDropout, without)) {
                long itemBytes = t.predictionInput().data().byteSize() / 8;
                for (int i = 0; i < 8; i++) data.readItem(i, t.predictionInput().data().asSlice(i * itemBytes, itemBytes));
            }
            assertArrayEquals(without.predict(0).toFloatArray(), withDropout.predict(0).toFloatArray());
        }
    }

    /**
     * The training step compiled by itself and run with PyTorch's masks in place of the Trainer's: SGD from the same
     * weights on the same batches follows PyTorch's loss within 1e-4 relative at each of 50 steps.
     */
    @Test
    void withPyTorchsMasksTrainingFollowsPyTorchsLoss() throws IOException {
        TrainableGraph graph = SampleBatches.trainable(MODEL);
        Optimizer sgd = new Optimizer(Optimizer.Kind.SGD, 0.01, 0, 0, 0.9, 0.999, 1e-8);
        List<Double> expected = Files.readAllLines(SampleBatches.TRAINING.resolve("bn-dropout-sgd-losses.txt")).stream()
            .map(Double::parseDouble).toList();
        float[] masks = TensorProtos.read(SampleBatches.TRAINING.resolve("bn-dropout-masks.pb")).tensor().toFloatArray();
        Map<String, Tensor> initial = new HashMap<>();
        graph.weights().forEach((v, t) -> initial.put(v.name(), t));
        graph.statistics().forEach((v, t) -> initial.put(v.name(), t));
        IdxSource data = SampleBatches.images(400);
        try (CompiledModule code = Compiler.compile(TrainingStep.of(graph, Loss.CROSS_ENTROPY, sgd, LossScaling.NONE,
            Optional.of(Compiler.arithmeticOf(CompileOptions.host()))), CompileOptions.host());
             HostModel step = Compiler.jit(code)) {
            List<String> inputNames = step.inputs().stream().map(TensorSpec::name).toList();
            List<Tensor> inputs = new ArrayList<>();
            for (TensorSpec spec : step.inputs()) {
                inputs.add(initial.containsKey(spec.name()) ? initial.get(spec.name()) : Tensor.zeros(spec.type(), spec.shape()));
            }
            Tensor mask = inputs.get(inputNames.indexOf(TrainingModeGraph.MASK + "dropout"));
            int maskSize = (int) mask.elementCount();
            for (int s = 0; s < expected.size(); s++) {
                SampleBatches.fill(inputs.get(0), inputs.get(1), data, s);
                for (int i = 0; i < maskSize; i++) mask.setFloat(i, masks[s * maskSize + i]);
                List<Tensor> outputs = step.run(inputs);
                float loss = outputs.getFirst().getFloat(0);
                double relative = Math.abs(loss - expected.get(s)) / Math.abs(expected.get(s));
                assertTrue(relative <= 1e-4, "step " + (s + 1) + ": loss " + loss + ", PyTorch " + expected.get(s));
                // The updated weights and running statistics are the next step's.
                for (int o = 0; o < outputs.size(); o++) {
                    String name = step.outputs().get(o).name();
                    if (name.endsWith(".updated")) inputs.set(inputNames.indexOf(name.substring(0, name.length() - 8)), outputs.get(o));
                }
            }
        }
    }

    /** The losses of three steps on the first batch, Dropout's masks drawn from {@code seed} on. */
    private static List<Float> losses(Trainer trainer, long seed) {
        IdxSource data = SampleBatches.images(8);
        List<Float> losses = new ArrayList<>();
        trainer.seedDropout(seed);
        for (int step = 0; step < 3; step++) {
            SampleBatches.fill(trainer, data, 0);
            losses.add(trainer.step());
        }
        return losses;
    }
}
