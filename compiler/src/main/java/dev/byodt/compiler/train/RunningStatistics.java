package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.ops.ChannelStatistics;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;

/**
 * BatchNormalization's running mean and variance after a training step, as PyTorch's BatchNorm updates them for
 * the model it exports: running = running * momentum + batch * (1 - momentum), with ONNX's momentum (PyTorch
 * exports 1 - its own), the batch's mean, and the batch's variance divided by the count less one (PyTorch's
 * unbiased running variance; ONNX's reference divides by the count, as the batch is normalized).
 */
final class RunningStatistics {
    /** The kernel updating node N's running statistics is named "running statistics of N". */
    static final String KERNEL = "running statistics of ";

    private RunningStatistics() {}

    /** The kernel writing the updated running statistics of {@code node} into {@code updated} (mean, variance). */
    static Kernel update(Node node, Map<Value, ?> statistics, Function<Value, Buffer> bufferOf, List<Buffer> updated) {
        for (int i = 3; i < 5; i++) {
            if (!statistics.containsKey(node.input(i))) {
                throw node.error("running statistic '" + node.input(i).name() + "' is computed by the graph, not an initializer training can update");
            }
        }
        Buffer x = bufferOf.apply(node.input(0));
        Buffer mean = bufferOf.apply(node.input(3)), variance = bufferOf.apply(node.input(4));
        double momentum = node.floatAttr("momentum", 0.9f);
        KernelBuilder kb = new KernelBuilder(KERNEL + node.name(), "BatchNormalizationStatistics",
            List.of(x, mean, variance), updated);
        kb.loop(x.dim(1), c -> {
            ChannelStatistics batch = ChannelStatistics.of(kb, x, c);
            kb.store(updated.get(0), c, average(kb.load(mean, c), kb.get(batch.mean()), momentum));
            kb.store(updated.get(1), c, average(kb.load(variance, c), batch.unbiasedVariance(kb), momentum));
        });
        return kb.build();
    }

    /** The updated buffers of {@code node}'s running mean and variance, named as the step's updated weights are. */
    static List<Buffer> updatedBuffers(Node node, Function<Value, Buffer> bufferOf) {
        return List.of(node.input(3), node.input(4)).stream().map(v -> {
            Buffer old = bufferOf.apply(v);
            return new Buffer(old.name() + ".updated", ScalarType.REAL, old.shape());
        }).toList();
    }

    private static Expr average(Expr running, Expr batch, double momentum) {
        return add(mul(running, real(momentum)), mul(batch, real(1 - momentum)));
    }
}
