package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.runtime.Shapes;

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
 * ONNX BatchNormalization in inference mode: Y = (X - mean) / sqrt(var + epsilon) * scale + B with the
 * stored statistics. The parameters are per channel (C), or, for spatial=0 in opsets up to 8, per element
 * of a sample (C x D1..Dn). Training (training_mode=1, or asking for the running and saved statistics) is
 * an error. Opsets up to 6 also have is_test, which, like ONNX Runtime, this ignores: with Y as the only
 * output there are no batch statistics to produce, and models exported that way expect inference.
 */
final class BatchNormalization implements Operator {
    private static final String[] PARAMETERS = {"scale", "B", "input_mean", "input_var"};

    static void registerAll() {
        Operators.register("BatchNormalization", new BatchNormalization());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 2);
        parameterShape(node, x.shape());
        return List.of(x);
    }

    /** The shape all four parameters share: a prefix of a sample's shape (C x D1..Dn). */
    private static long[] parameterShape(Node node, long[] x) {
        if (node.intAttr("training_mode", 0) != 0) {
            throw node.badAttribute("training_mode", 1, "inference only");
        }
        for (int i = 1; i < node.outputs().size(); i++) {
            if (Operands.hasOutput(node, i)) {
                throw node.error("training outputs (running and saved statistics) are not supported");
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
}
