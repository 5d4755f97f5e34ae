package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.runtime.Shapes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.sqrt;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * ONNX BatchNormalization: Y = (X - mean) / sqrt(var + epsilon) * scale + B. In inference mode the mean and
 * variance are the stored statistics, per channel (C), or, for spatial=0 in opsets up to 8, per element of a
 * sample (C x D1..Dn). With training_mode=1 (opsets 14 on) they are the batch's, per channel over the batch
 * and spatial axes (the variance divided by the count, as ONNX's reference does), and the optional outputs
 * running_mean and running_var are input * momentum + batch statistic * (1 - momentum). Asking for the
 * statistics outputs of older opsets, whose training mode was chosen by them, is an error. Opsets up to 6 also
 * have is_test, which, like ONNX Runtime, this ignores: with Y as the only output there are no batch
 * statistics to produce, and models exported that way expect inference.
 */
final class BatchNormalization implements Operator {
    private static final String[] PARAMETERS = {"scale", "B", "input_mean", "input_var"};

    static void registerAll() {
        Operators.register("BatchNormalization", new BatchNormalization());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 2);
        TensorType statistics = Operands.floatTensor(parameterShape(node, x.shape()));
        List<TensorType> types = new ArrayList<>(List.of(x));
        for (int i = 1; i < node.outputs().size(); i++) types.add(statistics);
        return types;
    }

    static boolean training(Node node) {
        long mode = node.intAttr("training_mode", 0);
        if (mode != 0 && mode != 1) throw node.badAttribute("training_mode", mode, "0 or 1");
        return mode == 1;
    }

    /** The shape all four parameters share: a prefix of a sample's shape (C x D1..Dn). */
    private static long[] parameterShape(Node node, long[] x) {
        int statisticsOutputs = training(node) ? 3 : 1;
        for (int i = statisticsOutputs; i < node.outputs().size(); i++) {
            if (Operands.hasOutput(node, i)) {
                throw node.error("training outputs (running and saved statistics) are not supported"
                    + (node.opsetVersion() >= 14 ? " without training_mode=1" : " before opset 14"));
            }
        }
        boolean spatial = node.opsetVersion() > 8 || node.intAttr("spatial", 1) != 0;
        long[] expected = spatial ? new long[] {x[1]} : Arrays.copyOfRange(x, 1, x.length);
        for (int i = 0; i < PARAMETERS.length; i++) {
            long[] shape = Operands.floatInput(node, i + 1, PARAMETERS[i]).shape();
            if (!Arrays.equals(shape, expected)) {
                throw node.error("input " + PARAMETERS[i] + " has shape " + Shapes.format(shape) + ", expected "
                    + Shapes.format(expected));
            }
        }
        return expected;
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        if (training(node)) {
            lowerTraining(node, kb);
            return;
        }
        Buffer x = kb.input(0);
        Buffer scale = kb.input(1);
        Buffer bias = kb.input(2);
        Buffer mean = kb.input(3);
        Buffer variance = kb.input(4);
        Buffer y = kb.output(0);
        long[] shape = x.shape();
        long[] parameters = parameterShape(node, shape);
        double epsilon = node.floatAttr("epsilon", 1e-5f);
        long[] rest = Arrays.copyOfRange(shape, 1 + parameters.length, shape.length);
        long restSize = Shapes.elementCount(rest, x.name());
        long sampleSize = Shapes.elementCount(parameters, "parameters") * restSize;
        // Per parameter element: the factor scale / sqrt(var + epsilon), then applied to the elements it covers.
        kb.loop(shape[0], n -> kb.loops(parameters, p -> {
            Expr param = flatIndex(parameters, p);
            Local factor = kb.local("factor", div(kb.load(scale, param), sqrt(add(kb.load(variance, param), real(epsilon)))));
            Expr start = add(mul(n, sampleSize), mul(param, restSize));
            kb.loop(restSize, i -> {
                Expr at = add(start, i);
                Expr normalized = mul(sub(kb.load(x, at), kb.load(mean, param)), kb.get(factor));
                kb.store(y, at, add(normalized, kb.load(bias, param)));
            });
        }));
    }

    /** Training mode: the batch's statistics per channel ({@link ChannelStatistics}), then Y. */
    private static void lowerTraining(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        long[] shape = x.shape();
        long[] channels = parameterShape(node, shape);
        double epsilon = node.floatAttr("epsilon", 1e-5f);
        double momentum = node.floatAttr("momentum", 0.9f);
        kb.loop(channels[0], c -> {
            ChannelStatistics statistics = ChannelStatistics.of(kb, x, c);
            Local variance = kb.local("variance", statistics.variance(kb));
            storeRunning(node, kb, 1, kb.input(3), c, kb.get(statistics.mean()), momentum);
            storeRunning(node, kb, 2, kb.input(4), c, kb.get(variance), momentum);
            Local factor = kb.local("factor", div(kb.load(kb.input(1), c), sqrt(add(kb.get(variance), real(epsilon)))));
            ChannelStatistics.forEachElement(kb, shape, c, at -> kb.store(kb.output(0), at,
                add(mul(sub(kb.load(x, at), kb.get(statistics.mean())), kb.get(factor)), kb.load(kb.input(2), c))));
        });
    }

    /** running = input * momentum + batch * (1 - momentum), when the node asks for that output. */
    private static void storeRunning(Node node, KernelBuilder kb, int output, Buffer input, Expr c, Expr batch, double momentum) {
        if (!Operands.hasOutput(node, output)) return;
        kb.store(kb.output(output), c, add(mul(kb.load(input, c), real(momentum)), mul(batch, real(1 - momentum))));
    }
}
