package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.divideByCount;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;

/**
 * ONNX GlobalAveragePool and GlobalMaxPool: the mean or maximum of all spatial elements of each channel of
 * X (N x C x D1..Dn), giving N x C x 1..1. A channel's elements are contiguous, so the reduction is one loop.
 */
final class GlobalPooling implements Operator {
    private final boolean average;

    private GlobalPooling(boolean average) {
        this.average = average;
    }

    static void registerAll() {
        Operators.register("GlobalAveragePool", new GlobalPooling(true));
        Operators.register("GlobalMaxPool", new GlobalPooling(false));
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 2);
        long[] shape = x.shape();
        Arrays.fill(shape, 2, shape.length, 1);
        return List.of(Operands.floatTensor(shape));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        long size = Operands.product(x.shape(), 2, x.rank());
        kb.loop(x.dim(0) * x.dim(1), channel -> {
            Expr start = mul(channel, size);
            Expr result;
            if (average) {
                Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
                kb.loop(size, i -> kb.assign(sum, accumulate(kb.get(sum), kb.load(x, add(start, i)))));
                result = divideByCount(cast(ScalarType.REAL, kb.get(sum)), size);
            } else {
                Local largest = kb.local("max", real(Double.NEGATIVE_INFINITY));
                kb.loop(size, i -> kb.assign(largest, max(kb.get(largest), kb.load(x, add(start, i)))));
                result = kb.get(largest);
            }
            kb.store(y, channel, result);
        });
    }
}
