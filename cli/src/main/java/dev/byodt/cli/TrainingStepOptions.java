package dev.byodt.cli;

import dev.byodt.cli.compare.Baseline;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.ConvAlgorithm;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.compiler.train.Loss;
import dev.byodt.compiler.train.LossScaling;
import dev.byodt.compiler.train.MasterWeights;
import dev.byodt.compiler.train.NodeDatatypes;
import dev.byodt.compiler.train.Optimizer;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.TensorSpec;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a training step computes, shared by {@code train} (which runs it) and {@code compile --train} (which writes
 * it): the batch, the loss, the optimizer with its settings, loss scaling and float32 master weights.
 */
final class TrainingStepOptions {
    @Option(names = "--batch", defaultValue = "32", paramLabel = "N", description = "Items per step (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--optimizer", defaultValue = "sgd", paramLabel = "sgd|momentum|adam",
        description = "As torch.optim.SGD (without and with momentum) and torch.optim.Adam compute it (default: ${DEFAULT-VALUE}).")
    String optimizer;

    @Option(names = "--lr", paramLabel = "X", description = "Learning rate (default: 0.01, for adam 0.001).")
    Double learningRate;

    @Option(names = "--momentum", defaultValue = "0.9", paramLabel = "X", description = "With momentum (default: ${DEFAULT-VALUE}).")
    double momentum;

    @Option(names = "--weight-decay", defaultValue = "0", paramLabel = "X", description = "L2 weight decay added to the gradient (default: ${DEFAULT-VALUE}).")
    double weightDecay;

    @Option(names = "--beta1", defaultValue = "0.9", paramLabel = "X", description = "Adam's first moment decay (default: ${DEFAULT-VALUE}).")
    double beta1;

    @Option(names = "--beta2", defaultValue = "0.999", paramLabel = "X", description = "Adam's second moment decay (default: ${DEFAULT-VALUE}).")
    double beta2;

    @Option(names = "--epsilon", defaultValue = "1e-8", paramLabel = "X", description = "Adam's epsilon (default: ${DEFAULT-VALUE}).")
    double epsilon;

    @Option(names = "--loss", defaultValue = "cross-entropy", paramLabel = "cross-entropy|mse",
        description = "cross-entropy on the logits (a final Softmax or LogSoftmax is folded into it), or mean squared "
            + "error against one-hot labels (default: ${DEFAULT-VALUE}).")
    String loss;

    @Option(names = "--loss-scale", paramLabel = "N|dynamic",
        description = "Multiply the loss's gradient by N before the backward pass and each weight's gradient by 1/N before "
            + "its update, both in the datatype, so that small gradients survive a narrow format (N and 1/N must be "
            + "values of it: a power of two). dynamic starts at 65536, skips a step whose scaled gradients overflow "
            + "(reach the datatype's largest magnitude or are not a number) and halves, and doubles after 2000 steps "
            + "without overflow, as PyTorch's GradScaler. Default: no scaling.")
    String lossScale;

    @Option(names = "--master-weights", paramLabel = "float32",
        description = "Keep the weights and the optimizer state in float32 and update them there, as mixed-precision "
            + "training does; the forward and backward passes round the weights into --dtype as they load them. "
            + "Default: the updates compute in --dtype.")
    String masterWeights;

    /** Refuses settings no training step has, in one line each. */
    void check() {
        if (Loss.named(loss) == null) throw new UsageException("--loss " + loss + ": expected cross-entropy or mse");
        if (Optimizer.Kind.named(optimizer) == null) throw new UsageException("--optimizer " + optimizer + ": expected sgd, momentum or adam");
        if (batch <= 0) throw new UsageException("--batch must be positive");
        if (masterWeights != null && !masterWeights.equals("float32")) {
            throw new UsageException("--master-weights " + masterWeights + ": only float32 is available");
        }
        lossScaling();
    }

    Loss lossFunction() { return Loss.named(loss); }

    Optimizer optimizer() {
        Optimizer.Kind kind = Optimizer.Kind.named(optimizer);
        double lr = learningRate != null ? learningRate : kind == Optimizer.Kind.ADAM ? 0.001 : 0.01;
        return new Optimizer(kind, lr, momentum, weightDecay, beta1, beta2, epsilon);
    }

    LossScaling lossScaling() {
        if (lossScale == null) return LossScaling.NONE;
        try {
            return LossScaling.parse(lossScale);
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** The model's compile options with each node's gradient kernels in its datatype, and the updates in float32 with master weights. */
    CompileOptions compileOptions(ModelOptions model) {
        if (model.multiplyAdd.convAlgorithm() == ConvAlgorithm.WINOGRAD) {
            throw new UsageException("--conv-algorithm winograd computes convolutions whose weights are constants; a training step's are its inputs");
        }
        CompileOptions perNode = NodeDatatypes.withGradients(model.compileOptions());
        return masterWeights != null ? MasterWeights.inFloat32(perNode) : perNode;
    }

    /** The model with its input's first dimension set to --batch. */
    Graph batchedModel(ModelOptions model) {
        Graph declared = model.load();
        TensorSpec input = Baseline.singleInput(declared);
        long[] shape = input.shape();
        if (shape.length == 0) throw new ByodtException("input '" + input.name() + "' is a scalar: it has no batch dimension");
        shape[0] = batch;
        Map<String, long[]> shapes = new LinkedHashMap<>(model.shapeOverrides());
        shapes.put(input.name(), shape);
        return OnnxLoader.load(model.model, shapes, model.boundInputs());
    }
}
