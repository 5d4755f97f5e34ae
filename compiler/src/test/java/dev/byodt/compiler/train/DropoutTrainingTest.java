package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.graph.Node;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.data.IdxSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dropout in training, on bn-dropout-cnn.onnx (bn-cnn with a Dropout of ratio 0.5 before its last Gemm): the
 * training step multiplies by a mask input (so Mul's gradient, checked against PyTorch, carries dY back through
 * the same mask); the masks drop the ratio of elements and scale the rest by 1 / (1 - ratio); the same seed
 * gives the same masks and so the same bits, each step a new mask; and prediction is the model without Dropout.
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
            assertArrayEquals(without.predict().toFloatArray(), withDropout.predict().toFloatArray());
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
