package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Shapes;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * ONNX MaxPool and AveragePool: the maximum or mean of each window of X (N x C x D1..Dn), per batch item
 * and channel. Padding is excluded from the maximum, and from the mean unless count_include_pad says so;
 * MaxPool's optional Indices output is not supported.
 */
final class Pooling implements Operator {
    private final boolean average;

    private Pooling(boolean average) {
        this.average = average;
    }

    static void registerAll() {
        Operators.register("MaxPool", new Pooling(false));
        Operators.register("AveragePool", new Pooling(true));
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = input(node);
        if (!average && Operands.hasOutput(node, 1)) throw node.error("the Indices output of MaxPool is not supported");
        long[] spatial = window(node, x).outputShape();
        long[] shape = new long[x.rank()];
        shape[0] = x.dim(0);
        shape[1] = x.dim(1);
        System.arraycopy(spatial, 0, shape, 2, spatial.length);
        return List.of(Operands.floatTensor(shape));
    }

    private static TensorType input(Node node) {
        return Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 3);
    }

    private static WindowGeometry window(Node node, TensorType x) {
        long[] kernel = node.intsAttr("kernel_shape", null);
        if (kernel == null) throw node.error("attribute kernel_shape is missing");
        return WindowGeometry.of(node, Arrays.copyOfRange(x.shape(), 2, x.rank()), kernel);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        WindowGeometry window = window(node, input(node));
        boolean countPadding = node.intAttr("count_include_pad", 0) != 0;
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        // One flat loop over the outputs: it vectorizes over a long run, loading each window's taps by gathers,
        // where the loop over a short output row (14 for LeNet-5) vectorized badly, across rows by scatters.
        long[] shape = y.shape();
        kb.loop(Shapes.elementCount(shape, y.name()), i -> {
            Expr[] at = unflatten(shape, i);
            Expr[] out = Arrays.copyOfRange(at, 2, at.length);
            Expr result = average ? mean(kb, window, x, at[0], at[1], out, countPadding)
                : maximum(kb, window, x, at[0], at[1], out);
            kb.store(y, i, result);
        });
    }

    /** The indices of the element at flat index {@code i} of a row-major tensor of this shape. */
    private static Expr[] unflatten(long[] shape, Expr i) {
        Expr[] at = new Expr[shape.length];
        long stride = 1;
        for (int d = shape.length - 1; d >= 0; d--) {
            Expr quotient = div(i, stride);
            at[d] = d == 0 ? quotient : rem(quotient, shape[d]);
            stride *= shape[d];
        }
        return at;
    }

    private static Expr maximum(KernelBuilder kb, WindowGeometry window, Buffer x, Expr batch, Expr channel, Expr[] out) {
        // Padding never wins: only taps inside the input take part, and the maximum of none (a window wholly
        // in padding, which needs pads as large as the kernel) is -inf.
        Local best = kb.local("max", real(Double.NEGATIVE_INFINITY));
        window.forEachTap(kb, out, (position, tap) ->
            kb.assign(best, max(kb.get(best), element(kb, x, batch, channel, position))));
        return kb.get(best);
    }

    private static Expr mean(KernelBuilder kb, WindowGeometry window, Buffer x, Expr batch, Expr channel, Expr[] out,
                             boolean countPadding) {
        Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
        window.forEachTap(kb, out, (position, tap) ->
            kb.assign(sum, accumulate(kb.get(sum), element(kb, x, batch, channel, position))));
        return window.mean(cast(ScalarType.REAL, kb.get(sum)), out, countPadding);
    }

    private static Expr element(KernelBuilder kb, Buffer x, Expr batch, Expr channel, Expr[] position) {
        return kb.load(x, flatIndex(x.shape(), WindowGeometry.indices(batch, channel, position)));
    }
}
