package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.dtype.CallItems;
import dev.byodt.compiler.lower.RandomCounters;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Trains a model one batch at a time with a compiled {@link TrainingStep}, and predicts with the current
 * weights through the model's own compiled forward pass (its tuned schedules, weights as inputs). Between
 * steps the weights and the optimizer state live in the caller's float32 tensors: each step's outputs
 * become the next step's inputs. The datatype converts them on entry and back on exit, which leaves every
 * value of a datatype float32 holds (all the 8- and 16-bit formats) unchanged; with {@link MasterWeights} the
 * updates compute in float32 and these tensors are the master copies. BatchNormalization's running statistics
 * pass from step to step the same way, and each step gets new Dropout masks ({@link DropoutMasks}). The step is
 * compiled with a call counter, so that stochastic rounding rounds each step with other random bits: the
 * counter is the number of steps run before (a step dynamic loss scaling skips included), the first step
 * rounding as a model compiled without one.
 */
public final class Trainer implements AutoCloseable {
    private final Optimizer optimizer;
    private final List<Value> weights;
    private final List<String> statistics;
    private final List<TrainingModeGraph.Dropout> dropouts;
    private DropoutMasks masks = new DropoutMasks(0);
    private final int stateCount;
    private final HostModel step;
    private final HostModel forward;
    private final List<Tensor> stepInputs;
    private final List<Tensor> stepOutputs;
    private final List<Tensor> forwardInputs;
    private final Arena arena = Arena.ofShared();
    private final LossScaling scaling;
    private final int stepScalarsInput;
    private final int lossScaleInput;
    private final int gradientCountsOutput;
    private final int updateCountsOutput;
    private final int callInput;
    private long calls;
    private final long weightElements;
    private double lossScale;
    private long steps;
    private long stepsSinceOverflow;
    private long skippedSteps;
    private StepStatistics.Counts counts = StepStatistics.Counts.NONE;

    private Trainer(TrainableGraph graph, Loss loss, Optimizer optimizer, LossScaling scaling, CompileOptions options) {
        this.optimizer = optimizer;
        this.scaling = scaling;
        this.lossScale = scaling.initialScale();
        this.weights = new ArrayList<>(graph.weights().keySet());
        this.statistics = graph.statistics().keySet().stream().map(Value::name).toList();
        this.dropouts = TrainingModeGraph.of(graph.graph()).dropouts();
        Program program = TrainingStep.of(graph, loss, optimizer, scaling, Optional.of(Compiler.arithmeticOf(options)));
        this.stateCount = weights.size() * optimizer.stateTensors();
        try (CompiledModule code = Compiler.compile(program, options.withCallCounter(true))) {
            this.step = Compiler.jit(code);
        }
        try (CompiledModule code = Compiler.compile(graph.graph(), options)) {
            this.forward = Compiler.jit(code);
        }
        this.stepInputs = allocate(step.inputs());
        this.stepOutputs = allocate(step.outputs());
        this.stepScalarsInput = indexOf(step.inputs(), TrainingStep.STEP_SCALARS);
        this.lossScaleInput = indexOf(step.inputs(), LossScaling.SCALE);
        this.gradientCountsOutput = indexOf(step.outputs(), StepStatistics.GRADIENT_COUNTS);
        this.updateCountsOutput = indexOf(step.outputs(), StepStatistics.UPDATE_COUNTS);
        this.callInput = indexOf(step.inputs(), RandomCounters.CALL_INPUT);
        this.weightElements = graph.weights().values().stream().mapToLong(Tensor::elementCount).sum();
        for (int i = 0; i < weights.size(); i++) {
            stepInputs.get(2 + i).data().copyFrom(graph.weights().get(weights.get(i)).data());
        }
        graph.statistics().forEach((v, initial) -> stepInputs.get(indexOf(step.inputs(), v.name())).data().copyFrom(initial.data()));
        this.forwardInputs = new ArrayList<>();
        forwardInputs.add(allocate(forward.inputs().subList(0, 1)).getFirst());
        forwardInputs.addAll(Collections.nCopies(weights.size() + statistics.size(), null));
    }

    /** Compiles the training step and the forward pass of {@code graph} for {@code options}' datatypes and target. */
    public static Trainer compile(TrainableGraph graph, Loss loss, Optimizer optimizer, CompileOptions options) {
        return compile(graph, loss, optimizer, LossScaling.NONE, options);
    }

    /** As {@link #compile(TrainableGraph, Loss, Optimizer, CompileOptions)}, scaling the loss as {@code scaling} says. */
    public static Trainer compile(TrainableGraph graph, Loss loss, Optimizer optimizer, LossScaling scaling, CompileOptions options) {
        return new Trainer(graph, loss, optimizer, scaling, options);
    }

    /** The batch of model inputs the next step trains on; fill it before {@link #step()}. */
    public Tensor images() { return stepInputs.get(0); }

    /** The batch's labels (int64), filled like {@link #images()}. */
    public Tensor labels() { return stepInputs.get(1); }

    /**
     * Trains on the batch in {@link #images()} and {@link #labels()}; returns the batch's loss before the update.
     * With dynamic loss scaling a step whose scaled gradients overflowed updates nothing (Adam's step count
     * included) and halves the scale.
     */
    public float step() {
        steps++;
        float[] scalars = optimizer.stepScalars(steps);
        for (int i = 0; i < scalars.length; i++) stepInputs.get(stepScalarsInput).setFloat(i, scalars[i]);
        if (lossScaleInput >= 0) {
            stepInputs.get(lossScaleInput).setFloat(0, (float) lossScale);
            stepInputs.get(lossScaleInput).setFloat(1, (float) (1 / lossScale));
        }
        for (TrainingModeGraph.Dropout d : dropouts) masks.fill(stepInputs.get(indexOf(step.inputs(), d.mask().name())), d.ratio());
        if (callInput >= 0) stepInputs.get(callInput).setLong(0, calls);
        calls++;
        step.run(stepInputs, stepOutputs);
        // The running statistics follow the batches, also those of a step whose update is skipped, as in PyTorch.
        for (String name : statistics) swap(indexOf(step.inputs(), name), indexOf(step.outputs(), name + ".updated"));
        Tensor gradientCounts = stepOutputs.get(gradientCountsOutput), updateCounts = stepOutputs.get(updateCountsOutput);
        boolean overflowed = gradientCounts.getLong(1) != 0;
        if (scaling.dynamic() && overflowed) {
            counts = counts.plus(gradientCounts.getLong(0), gradientCounts.getLong(1), 0, 0);
            steps--;
            skippedSteps++;
            stepsSinceOverflow = 0;
            lossScale /= 2;
            return stepOutputs.get(0).getFloat(0);
        }
        counts = counts.plus(gradientCounts.getLong(0), gradientCounts.getLong(1), updateCounts.getLong(0), updateCounts.getLong(1));
        if (scaling.dynamic() && ++stepsSinceOverflow == scaling.growthInterval()) {
            stepsSinceOverflow = 0;
            lossScale *= 2;
        }
        // The updated weights and state become the next step's inputs; the old ones take their place as outputs.
        int updated = weights.size() + stateCount;
        for (int i = 0; i < updated; i++) swap(2 + i, 2 + i);
        return stepOutputs.get(0).getFloat(0);
    }

    /** Makes step output {@code output} the next step's input {@code input}, and the old input the output's place. */
    private void swap(int input, int output) {
        Tensor next = stepOutputs.get(output);
        stepOutputs.set(output, stepInputs.get(input));
        stepInputs.set(input, next);
    }

    /** Draws the Dropout masks of the following steps from a generator seeded with {@code seed} (0 until called). */
    public void seedDropout(long seed) { masks = new DropoutMasks(seed); }

    /** The loss scale the next step uses (1 without loss scaling). */
    public double lossScale() { return lossScale; }

    /** The gradients and updates counted so far ({@link StepStatistics}); a skipped step's updates are not counted. */
    public StepStatistics.Counts counts() { return counts; }

    /** The weights' elements: how many gradients and updates each step counts. */
    public long weightElements() { return weightElements; }

    /** How many steps dynamic loss scaling skipped because their scaled gradients overflowed. */
    public long skippedSteps() { return skippedSteps; }

    /** The model's output for the batch of the last step, computed with the weights before that step's update. */
    public Tensor stepOutput() { return stepOutputs.get(1); }

    /** The batch the forward pass takes; fill it before {@link #predict()}. */
    public Tensor predictionInput() { return forwardInputs.getFirst(); }

    /**
     * The model's output for {@link #predictionInput()} with the current weights, its first item item {@code firstItem}
     * of the items predicted (which stochastic rounding's random bits follow, {@link dev.byodt.compiler.dtype.CallItems}).
     */
    public Tensor predict(long firstItem) {
        for (int i = 0; i < weights.size(); i++) forwardInputs.set(1 + i, stepInputs.get(2 + i));
        for (int i = 0; i < statistics.size(); i++) {
            forwardInputs.set(1 + weights.size() + i, stepInputs.get(indexOf(step.inputs(), statistics.get(i))));
        }
        return forward.run(CallItems.withFirstItem(forward.inputs(), forwardInputs, firstItem)).getFirst();
    }

    /** The current weights, by name (float32 copies). */
    public Map<String, Tensor> weights() {
        Map<String, Tensor> current = new LinkedHashMap<>();
        for (int i = 0; i < weights.size(); i++) current.put(weights.get(i).name(), copy(stepInputs.get(2 + i)));
        return current;
    }

    /** What the trained model's initializers become: the current weights and running statistics, by name. */
    public Map<String, Tensor> initializers() {
        Map<String, Tensor> current = weights();
        for (String name : statistics) current.put(name, copy(stepInputs.get(indexOf(step.inputs(), name))));
        return current;
    }

    private static Tensor copy(Tensor t) {
        Tensor copy = Tensor.zeros(ElementType.FLOAT32, t.shape());
        copy.data().copyFrom(t.data());
        return copy;
    }

    /** The position of the tensor named {@code name} among {@code specs}, or -1. */
    private static int indexOf(List<TensorSpec> specs, String name) {
        for (int i = 0; i < specs.size(); i++) if (specs.get(i).name().equals(name)) return i;
        return -1;
    }

    private List<Tensor> allocate(List<TensorSpec> specs) {
        List<Tensor> tensors = new ArrayList<>();
        for (TensorSpec spec : specs) tensors.add(Tensor.zeros(spec.type(), spec.shape(), arena));
        return tensors;
    }

    @Override
    public void close() {
        step.close();
        forward.close();
        arena.close();
    }
}
