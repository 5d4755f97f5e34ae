package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.ops.NodeArithmetic;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * One training step as a program of loop nests, compiled like any model: the forward kernels of the graph,
 * the loss and its gradient, the backward kernels, and an optimizer update per weight. Weights and optimizer
 * state come in as inputs and go out, updated, as outputs, so the caller swaps them from step to step.
 *
 * <p>Inputs: the model's input (a batch), the labels (int64, one per item), each weight, each weight's
 * optimizer state ({@link Optimizer#stateNames}), for Adam the step's two scalars, with loss scaling the
 * scale and its inverse, each running statistic ({@link TrainableGraph#statistics}) and each Dropout's mask
 * ({@link TrainingModeGraph}); compiled with a call counter where some kernel rounds stochastically, as
 * {@link Trainer} and {@code compile --train} compile it, the step's number last
 * ({@link dev.byodt.compiler.lower.RandomCounters#CALL_INPUT}). Outputs: the loss (one element), the model's
 * output (for the batch's accuracy), each updated weight, each updated state, the {@link StepStatistics} counts
 * of the gradients and the updates, and each updated running statistic ({@link RunningStatistics}).
 */
public final class TrainingStep {
    private final ProgramAssembly assembly = new ProgramAssembly();

    private TrainingStep() {}

    /** The name of the input holding Adam's step scalars. */
    public static final String STEP_SCALARS = "optimizer.step";

    /**
     * The step with loss scaling as {@code scaling} says (the input {@link LossScaling#SCALE} last when enabled), its
     * forward and gradient kernels in their schedules tuned for the vectors and arithmetic {@code arithmeticOf} says of each node
     * ({@link dev.byodt.compiler.Compiler#arithmeticOf}), or empty, in their reference nests.
     */
    public static Program of(TrainableGraph trainable, Loss loss, Optimizer optimizer, LossScaling scaling,
                             Optional<Function<Node, NodeArithmetic>> arithmeticOf) {
        return new TrainingStep().build(trainable, loss, optimizer, scaling, arithmeticOf);
    }

    private Program build(TrainableGraph trainable, Loss loss, Optimizer optimizer, LossScaling scaling,
                          Optional<Function<Node, NodeArithmetic>> arithmeticOf) {
        Graph graph = trainable.graph();
        List<Value> weights = new ArrayList<>(trainable.weights().keySet());
        int dataInputs = graph.inputs().size() - weights.size() - trainable.statistics().size();
        if (dataInputs != 1 || graph.outputs().size() != 1) {
            throw new ByodtException("training needs a model of one input and one output; this one has " + dataInputs
                + " inputs and " + graph.outputs().size() + " outputs");
        }
        Value output = graph.outputs().getFirst();
        TensorType outType = output.type();
        if (outType.rank() != 2 || outType.elementType() != ElementType.FLOAT32) {
            throw new ByodtException("training needs an output of class scores, batch x classes; output '" + output.name()
                + "' is " + outType);
        }
        TrainingModeGraph training = TrainingModeGraph.of(graph);
        List<Kernel> kernels = assembly.forward(training.graph(), arithmeticOf);
        Value scores = loss == Loss.CROSS_ENTROPY ? logitsBeforeSoftmax(graph, output) : output;
        long batch = outType.dim(0);
        Buffer labels = new Buffer("labels", ScalarType.I64, new long[]{batch});
        Buffer lossValue = new Buffer("loss", ScalarType.REAL, new long[]{1});
        Buffer scoresGradient = new Buffer("d" + scores.name(), ScalarType.REAL, outType.shape());
        kernels.add(loss.value(assembly.bufferOf(scores), labels, lossValue));
        kernels.add(loss.gradient(assembly.bufferOf(scores), labels, scoresGradient));
        Buffer scale = scaling.enabled() ? new Buffer(LossScaling.SCALE, ScalarType.REAL, new long[]{2}) : null;
        Buffer backpropagated = scoresGradient;
        if (scale != null) {
            backpropagated = new Buffer(scoresGradient.name() + ".scaled", ScalarType.REAL, outType.shape());
            kernels.add(scaling.scale(scoresGradient, scale, backpropagated));
        }
        Backpropagation.Result backward = Backpropagation.of(training.graph().nodes(), Map.of(scores, backpropagated), weights,
            assembly::bufferOf, arithmeticOf);
        kernels.addAll(backward.kernels());
        Buffer gradientCounts = new Buffer(StepStatistics.GRADIENT_COUNTS, ScalarType.I64, new long[]{2});
        kernels.add(StepStatistics.gradients(weights.stream().map(w -> backward.gradients().get(w)).toList(), gradientCounts));

        Buffer scalars = optimizer.kind() == Optimizer.Kind.ADAM
            ? new Buffer(STEP_SCALARS, ScalarType.REAL, new long[]{2}) : null;
        List<Buffer> inputs = new ArrayList<>(List.of(assembly.bufferOf(graph.inputs().getFirst()), labels));
        List<Buffer> outputs = new ArrayList<>(List.of(lossValue, assembly.bufferOf(output)));
        List<Buffer> states = new ArrayList<>();
        List<Buffer> newStates = new ArrayList<>();
        List<Buffer> appliedGradients = new ArrayList<>(), weightBuffers = new ArrayList<>(), newWeights = new ArrayList<>();
        for (Value w : weights) {
            Buffer weight = assembly.bufferOf(w);
            Buffer newWeight = new Buffer(w.name() + ".updated", ScalarType.REAL, weight.shape());
            List<Buffer> state = optimizer.stateNames(w.name()).stream()
                .map(n -> new Buffer(n, ScalarType.REAL, weight.shape())).toList();
            List<Buffer> newState = state.stream()
                .map(s -> new Buffer(s.name() + ".updated", ScalarType.REAL, weight.shape())).toList();
            Buffer gradient = backward.gradients().get(w);
            if (scale != null) {
                Buffer unscaled = new Buffer(gradient.name() + ".unscaled", ScalarType.REAL, gradient.shape());
                kernels.add(scaling.unscale(gradient, scale, unscaled));
                gradient = unscaled;
            }
            kernels.add(optimizer.update(weight, gradient, state, scalars, newWeight, newState));
            appliedGradients.add(gradient);
            weightBuffers.add(weight);
            newWeights.add(newWeight);
            inputs.add(weight);
            outputs.add(newWeight);
            states.addAll(state);
            newStates.addAll(newState);
        }
        inputs.addAll(states);
        outputs.addAll(newStates);
        Buffer updateCounts = new Buffer(StepStatistics.UPDATE_COUNTS, ScalarType.I64, new long[]{2});
        kernels.add(StepStatistics.updates(appliedGradients, weightBuffers, newWeights, updateCounts));
        if (scalars != null) inputs.add(scalars);
        if (scale != null) inputs.add(scale);
        outputs.add(gradientCounts);
        outputs.add(updateCounts);
        for (Node node : training.batchNormalizations()) {
            List<Buffer> updated = RunningStatistics.updatedBuffers(node, assembly::bufferOf);
            kernels.add(RunningStatistics.update(node, trainable.statistics(), assembly::bufferOf, updated));
            outputs.addAll(updated);
        }
        trainable.statistics().keySet().forEach(v -> inputs.add(assembly.bufferOf(v)));
        training.dropouts().forEach(d -> inputs.add(assembly.bufferOf(d.mask())));
        return assembly.program(graph.name() + " training step", kernels, inputs, outputs);
    }

    /** The input of a final Softmax or LogSoftmax over the classes, which cross-entropy takes as logits, else the output. */
    private static Value logitsBeforeSoftmax(Graph graph, Value output) {
        for (Node node : graph.nodes()) {
            if (node.outputs().contains(output) && (node.opType().equals("Softmax") || node.opType().equals("LogSoftmax"))) {
                long axis = node.intAttr("axis", node.opsetVersion() >= 13 ? -1 : 1);
                if (axis == 1 || axis == -1) return node.input(0);
            }
        }
        return output;
    }

}
