package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.lower.RandomCounters;
import dev.byodt.compiler.ops.Operators;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stochastic rounding in training rounds each step with other random bits (the step's number is the training
 * step's call counter, docs/datatypes.md "Stochastic rounding"), so that updates smaller than the datatype's
 * spacing accumulate in expectation, as stochastic rounding is meant to make them; the first step rounds as a
 * step compiled without the counter; and a step gives the same bits on one thread and on two.
 */
class StochasticTrainingStepsTest {
    private static final int BATCH = 8, FEATURES = 16, IDLE_FEATURES = 8, CLASSES = 4;
    private static final int STEPS = 256;
    /** SGD with lr = wd = 2^-5: a weight whose gradient is exactly 0 becomes w - 2^-10 w, both products exact in bfloat16. */
    private static final Optimizer DECAY = new Optimizer(Optimizer.Kind.SGD, 0x1p-5, 0, 0x1p-5, 0.9, 0.999, 1e-8);

    /**
     * A Gemm over 16 features of which the first 8 are 0 in every batch: their weights, 1.0 at first, get a gradient
     * of exactly 0, and so each step only weight decay's update, w 2^-10, a quarter of bfloat16's spacing 2^-8 below
     * 1 (less below). With nearest rounding no update is ever taken. Rounded stochastically with the step's own
     * bits, the only rounding, w - w 2^-10, is unbiased, so after 256 steps E[w] = (1 - 2^-10)^256 = 0.7788, and
     * each step's rounding error has a variance at most (2^-8)^2 / 4: each weight must lie within five standard
     * deviations, 5 sqrt(256) 2^-9, of it, and their mean within that over sqrt(32). With the same bits every step
     * (no call counter) a weight whose bits round 1 - 2^-10 up, three in four, stays at 1.0 at every step: 0.22 from
     * the expectation, beyond the bound of 0.16.
     */
    @Test
    void updatesOfAQuarterOfTheSpacingAccumulateInExpectation() {
        double expected = Math.pow(1 - 0x1p-10, STEPS), bound = 5 * Math.sqrt(STEPS) * 0x1p-9;
        float[] stochastic = idleWeightsAfterTraining(bfloat16("stochastic", 3));
        double sum = 0;
        for (int i = 0; i < stochastic.length; i++) {
            assertTrue(Math.abs(stochastic[i] - expected) <= bound, "weight " + i + " is " + stochastic[i] + ", expected "
                + expected + " within " + bound);
            sum += stochastic[i];
        }
        double mean = sum / stochastic.length;
        assertTrue(Math.abs(mean - expected) <= bound / Math.sqrt(stochastic.length), "mean " + mean + ", expected " + expected);
        for (float w : idleWeightsAfterTraining(bfloat16("nearest", 3))) assertEquals(1.0f, w, "to nearest, every update rounds away");
    }

    /**
     * One step of the small CNN with Adam in bfloat16, rounded stochastically: as call 0 it gives the bits of the step
     * compiled without a call counter (every output); as call 1, on the same inputs, other updated weights; and
     * compiled for two threads, the bits of one thread in both calls.
     */
    @Test
    void theFirstStepRoundsAsWithoutACounterTheNextOtherwiseAndTwoThreadsAsOne() {
        TrainableGraph graph = SampleBatches.smallCnn();
        Optimizer adam = new Optimizer(Optimizer.Kind.ADAM, 0.001, 0, 0, 0.9, 0.999, 1e-8);
        CompileOptions options = bfloat16("stochastic", 5);
        Program step = TrainingStep.of(graph, Loss.CROSS_ENTROPY, adam, LossScaling.NONE, Optional.of(Compiler.arithmeticOf(options)));
        List<Tensor> inputs = SampleBatches.adamStepInputs(step.inputSpecs(), graph, adam);
        List<Tensor> withoutCounter;
        try (CompiledModule code = Compiler.compile(step, options); HostModel model = Compiler.jit(code)) {
            withoutCounter = model.run(inputs);
        }
        List<List<Tensor>> oneThread = calls(step, options, inputs), twoThreads = calls(step, options.withThreads(2).withLeastSplitWork(0), inputs);
        List<String> outputs = step.outputSpecs().stream().map(TensorSpec::name).toList();
        for (int i = 0; i < outputs.size(); i++) {
            byte[] first = bytes(oneThread.get(0).get(i));
            assertArrayEquals(bytes(withoutCounter.get(i)), first, outputs.get(i) + ": call 0's bits");
            for (int call = 0; call < 2; call++) {
                assertArrayEquals(bytes(oneThread.get(call).get(i)), bytes(twoThreads.get(call).get(i)), outputs.get(i) + ", call " + call + ": two threads");
            }
        }
        int weight = outputs.indexOf(graph.weights().keySet().iterator().next().name() + ".updated");
        assertFalse(Arrays.equals(bytes(oneThread.get(0).get(weight)), bytes(oneThread.get(1).get(weight))), "call 1 rounds the update otherwise");
    }

    /** Calls 0 and 1 of {@code step} compiled with a call counter, each on {@code inputs}. */
    private static List<List<Tensor>> calls(Program step, CompileOptions options, List<Tensor> inputs) {
        try (CompiledModule code = Compiler.compile(step, options.withCallCounter(true)); HostModel model = Compiler.jit(code)) {
            assertEquals(RandomCounters.CALL_INPUT, model.inputs().getLast().name());
            return List.of(model.run(withCall(inputs, 0)), model.run(withCall(inputs, 1)));
        }
    }

    private static byte[] bytes(Tensor t) { return t.data().toArray(JAVA_BYTE); }

    private static CompileOptions bfloat16(String rounding, long seed) {
        return CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype("bfloat16")
            .withOptions(Map.of("rounding", rounding)).withSeed(seed));
    }

    private static List<Tensor> withCall(List<Tensor> inputs, long call) {
        Tensor counter = Tensor.zeros(ElementType.INT64, new long[]{1});
        counter.setLong(0, call);
        List<Tensor> all = new ArrayList<>(inputs);
        all.add(counter);
        return all;
    }

    /** The weights of the idle features after {@link #STEPS} steps of seeded batches. */
    private static float[] idleWeightsAfterTraining(CompileOptions options) {
        try (Trainer trainer = Trainer.compile(idleFeatureGemm(), Loss.CROSS_ENTROPY, DECAY, options)) {
            Random random = new Random(5);
            for (int step = 0; step < STEPS; step++) {
                for (int b = 0; b < BATCH; b++) {
                    for (int f = IDLE_FEATURES; f < FEATURES; f++) trainer.images().setFloat(b * FEATURES + f, (float) random.nextGaussian());
                    trainer.labels().setLong(b, random.nextInt(CLASSES));
                }
                trainer.step();
            }
            float[] weights = trainer.weights().get("W").toFloatArray();
            return Arrays.copyOf(weights, IDLE_FEATURES * CLASSES);
        }
    }

    /** Y = X W + B, X batch x 16, W 16 x 4: the first 8 rows of W 1.0, the others and B small seeded values. */
    private static TrainableGraph idleFeatureGemm() {
        Random random = new Random(2);
        float[] w = new float[FEATURES * CLASSES];
        for (int i = 0; i < w.length; i++) w[i] = i < IDLE_FEATURES * CLASSES ? 1.0f : (float) (random.nextGaussian() / 4);
        Value x = new Value("X");
        x.setType(new TensorType(ElementType.FLOAT32, new long[]{BATCH, FEATURES}));
        Value weights = new Value("W"), bias = new Value("B"), y = new Value("Y");
        weights.setConstant(Tensor.ofFloats(new long[]{FEATURES, CLASSES}, w));
        bias.setConstant(Tensor.ofFloats(new long[]{CLASSES}, new float[CLASSES]));
        Node gemm = new Node("fc", "Gemm", "", 13, List.of(x, weights, bias), List.of(y), Map.of());
        y.setType(Operators.lookup("Gemm").inferTypes(gemm).getFirst());
        return TrainableGraph.of(new Graph("idle features", List.of(x), List.of(y), List.of(gemm)), Set.of("W", "B"));
    }
}
