package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.data.IdxSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Loss scaling in the training step. In float32 a power-of-two scale changes only exponents (no gradient of the
 * small CNN comes near float32's range), so a scaled run follows the unscaled one bit for bit; in float16 a
 * dynamic scale that starts far too large overflows, skips those steps without touching a weight, and halves
 * until it fits.
 */
class LossScalingTest {
    private static final int STEPS = 5;
    private static final Optimizer SGD = new Optimizer(Optimizer.Kind.SGD, 0.05, 0, 0, 0.9, 0.999, 1e-8);

    @Test
    void aPowerOfTwoScaleInFloat32ChangesNoBit() {
        Run plain = train(LossScaling.NONE, STEPS, "float32");
        Run scaled = train(LossScaling.fixed(1024), STEPS, "float32");
        assertEquals(plain.losses(), scaled.losses());
        plain.weights().forEach((name, w) -> assertArrayEquals(w.toFloatArray(), scaled.weights().get(name).toFloatArray(), name));
    }

    @Test
    void aDynamicScaleSkipsTheStepsThatOverflowAndHalves() {
        Map<String, Tensor> initial = train(LossScaling.NONE, 0, "float32").weights();
        double tooLarge = 0x1p30;
        Run first = train(LossScaling.dynamic(tooLarge, 1000), 1, "float16");
        assertEquals(1, first.skippedSteps(), "2^30 times the loss's gradient overflows float16");
        assertTrue(first.counts().saturatedGradients() > 0, first.counts().toString());
        assertEquals(0, first.counts().vanishedUpdates() + first.counts().saturatedUpdates(), "a skipped step's updates are not counted");
        assertEquals(tooLarge / 2, first.lossScale());
        initial.forEach((name, w) -> assertArrayEquals(w.toFloatArray(), first.weights().get(name).toFloatArray(), name + " unchanged"));

        Run run = train(LossScaling.dynamic(tooLarge, 1000), 30, "float16");
        assertTrue(run.skippedSteps() > 1 && run.skippedSteps() < 30, "skipped " + run.skippedSteps());
        assertEquals(tooLarge / Math.pow(2, run.skippedSteps()), run.lossScale());
        run.losses().forEach(loss -> assertTrue(Float.isFinite(loss), "losses " + run.losses()));
        assertTrue(initial.entrySet().stream().anyMatch(w -> !java.util.Arrays.equals(w.getValue().toFloatArray(),
            run.weights().get(w.getKey()).toFloatArray())), "the steps after the scale fits update the weights");
    }

    @Test
    void theGrowthIntervalDoublesTheScale() {
        assertEquals(4.0, train(LossScaling.dynamic(1, 2), 4, "float32").lossScale());
    }

    @Test
    void anOptionIsANumberOrDynamic() {
        assertEquals(LossScaling.fixed(1024), LossScaling.parse("1024"));
        assertEquals(LossScaling.dynamic(65536, 2000), LossScaling.parse("dynamic"));
        assertThrows(RuntimeException.class, () -> LossScaling.parse("big"));
        assertThrows(RuntimeException.class, () -> LossScaling.parse("0"));
        assertThrows(RuntimeException.class, () -> LossScaling.parse("1e40"), "beyond float32");
    }

    private record Run(List<Float> losses, Map<String, Tensor> weights, long skippedSteps, double lossScale, StepStatistics.Counts counts) {}

    /** {@code steps} steps on the sample batches; the batch of a skipped step is trained on again. */
    private static Run train(LossScaling scaling, int steps, String datatype) {
        try (Trainer trainer = Trainer.compile(SampleBatches.smallCnn(), Loss.CROSS_ENTROPY, SGD, scaling,
                CompileOptions.host().withDatatype(datatype))) {
            IdxSource data = SampleBatches.images(4 * steps + 4);
            List<Float> losses = new ArrayList<>();
            for (int step = 0; step < steps; step++) {
                SampleBatches.fill(trainer, data, (int) (step - trainer.skippedSteps()));
                losses.add(trainer.step());
            }
            return new Run(losses, trainer.weights(), trainer.skippedSteps(), trainer.lossScale(), trainer.counts());
        }
    }
}
