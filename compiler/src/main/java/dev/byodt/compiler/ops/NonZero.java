package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.idx;

/**
 * NonZero of a constant: the int64 coordinates [rank, count] of the nonzero elements (NaN counts as nonzero),
 * in row-major order. The count decides the output's shape, so the input must be known at compile time; the
 * kernel stores constants only and folds away.
 */
final class NonZero implements Operator {
    static void registerAll() {
        Operators.register("NonZero", new NonZero());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        Tensor x = constantInput(node);
        return List.of(new TensorType(ElementType.INT64, new long[] {x.rank(), nonZeroCount(x)}));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Tensor x = constantInput(node);
        Buffer out = kb.output(0);
        long[] shape = x.shape();
        long count = out.dim(1), n = 0;
        for (long i = 0; i < x.elementCount(); i++) {
            if (x.getDouble(i) == 0) continue;
            long rest = i;
            for (int d = shape.length - 1; d >= 0; d--) {
                kb.store(out, idx(d * count + n), idx(rest % shape[d]));
                rest /= shape[d];
            }
            n++;
        }
    }

    private static long nonZeroCount(Tensor x) {
        long count = 0;
        for (long i = 0; i < x.elementCount(); i++) {
            if (x.getDouble(i) != 0) count++;
        }
        return count;
    }

    private static Tensor constantInput(Node node) {
        Value x = node.input(0);
        if (!x.isConstant()) {
            throw node.error("input '" + x.name() + "' must be known at compile time: the number of nonzero elements decides"
                + " the output's shape (fix it with --bind " + x.name() + "=FILE.pb)");
        }
        return x.constant();
    }
}
