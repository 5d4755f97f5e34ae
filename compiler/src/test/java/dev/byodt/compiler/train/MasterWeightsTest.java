package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.data.IdxSource;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * float32 master weights in bfloat16 training. With a learning rate so small that every update is below half a
 * bfloat16 ulp of its weight, the weights of plain bfloat16 training never move (each update rounds away), while
 * the float32 master weights take the updates: they move, and off the bfloat16 grid. The step's counts say so:
 * every update of a nonzero gradient vanished in bfloat16.
 */
class MasterWeightsTest {
    private static final int STEPS = 3;
    private static final Optimizer TINY_SGD = new Optimizer(Optimizer.Kind.SGD, 1e-6, 0, 0, 0.9, 0.999, 1e-8);

    @Test
    void float32MasterWeightsKeepTheUpdatesBfloat16Rounds() {
        Map<String, Tensor> initial = train(CompileOptions.host().withDatatype("float32"), 0).weights();
        CompileOptions bfloat16 = CompileOptions.host().withDatatype("bfloat16");
        Run plainRun = train(bfloat16, STEPS), masterRun = train(MasterWeights.inFloat32(bfloat16), STEPS);
        Map<String, Tensor> plain = plainRun.weights(), master = masterRun.weights();
        initial.forEach((name, w) -> {
            float[] before = roundedToBfloat16(w.toFloatArray());
            assertArrayEquals(before, plain.get(name).toFloatArray(), name + ": bfloat16 updates round away");
            assertFalse(Arrays.equals(before, master.get(name).toFloatArray()), name + ": the master weights move");
        });
        assertTrue(master.values().stream().anyMatch(w -> {
            for (float v : w.toFloatArray()) if ((Float.floatToRawIntBits(v) & 0xFFFF) != 0) return true;
            return false;
        }), "master weights between bfloat16 values");
        // Every update with a nonzero gradient vanished in bfloat16; in float32 fewer do.
        StepStatistics.Counts plainCounts = plainRun.counts(), masterCounts = masterRun.counts();
        assertEquals(plainRun.weightElements() * STEPS - plainCounts.zeroGradients(), plainCounts.vanishedUpdates());
        assertTrue(masterCounts.vanishedUpdates() < plainCounts.vanishedUpdates(), masterCounts + " " + plainCounts);
        assertEquals(0, plainCounts.saturatedGradients() + plainCounts.saturatedUpdates());
    }

    private record Run(Map<String, Tensor> weights, StepStatistics.Counts counts, long weightElements) {}

    private static Run train(CompileOptions options, int steps) {
        try (Trainer trainer = Trainer.compile(SampleBatches.smallCnn(), Loss.CROSS_ENTROPY, TINY_SGD, options)) {
            IdxSource data = SampleBatches.images(4 * Math.max(steps, 1));
            for (int step = 0; step < steps; step++) {
                SampleBatches.fill(trainer, data, step);
                trainer.step();
            }
            return new Run(trainer.weights(), trainer.counts(), trainer.weightElements());
        }
    }

    /** Round to nearest even at bfloat16's 16 high bits (the sample CNN's weights are finite and normal). */
    private static float[] roundedToBfloat16(float[] values) {
        float[] rounded = new float[values.length];
        for (int i = 0; i < values.length; i++) {
            int bits = Float.floatToRawIntBits(values[i]);
            bits += 0x7FFF + ((bits >>> 16) & 1);
            rounded[i] = Float.intBitsToFloat(bits & 0xFFFF0000);
        }
        return rounded;
    }
}
