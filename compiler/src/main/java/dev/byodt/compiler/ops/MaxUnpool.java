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

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * ONNX MaxUnpool, MaxPool's partial inverse: zeros, with each element of X written where its index in I says.
 * An index counts in MaxPool's input, whose shape is (in - 1) * stride + kernel - pads per spatial axis; an
 * output_shape input makes the output larger, the same positions padded at the end of each axis, as ONNX's
 * reference places them. Indices outside that input are skipped, and the last of equal ones wins.
 */
final class MaxUnpool implements Operator {
    static void registerAll() {
        Operators.register("MaxUnpool", new MaxUnpool());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 3);
        if (node.input(1) == null) throw node.error("input I is missing");
        TypeRules.requireInteger(node, node.input(1), "I");
        if (!Arrays.equals(node.input(1).type().shape(), x.shape())) {
            throw node.error("input I has shape " + Shapes.format(node.input(1).type().shape()) + ", but X has "
                + Shapes.format(x.shape()));
        }
        return List.of(Operands.floatTensor(outputShape(node, x.shape())));
    }

    /** The shape of MaxPool's input, from X's and the window attributes. */
    private static long[] pooledFrom(Node node, long[] x) {
        int n = x.length - 2;
        long[] kernel = node.intsAttr("kernel_shape", null);
        if (kernel == null || kernel.length != n) throw node.error("attribute kernel_shape needs " + n + " values");
        long[] strides = node.intsAttr("strides", filled(n, 1));
        long[] pads = node.intsAttr("pads", new long[2 * n]);
        if (strides.length != n || pads.length != 2 * n) throw node.error("attributes strides and pads need " + n + " and " + 2 * n + " values");
        long[] shape = x.clone();
        for (int d = 0; d < n; d++) shape[2 + d] = (x[2 + d] - 1) * strides[d] + kernel[d] - pads[d] - pads[n + d];
        if (Arrays.stream(shape).anyMatch(s -> s <= 0)) throw node.error("the unpooled shape " + Shapes.format(shape) + " is empty");
        return shape;
    }

    private static long[] outputShape(Node node, long[] x) {
        long[] pooled = pooledFrom(node, x);
        long[] requested = node.input(2) == null ? null : StaticInputs.ints(node, 2, "output_shape");
        if (requested == null) return pooled;
        for (int d = 0; d < pooled.length; d++) {
            if (requested.length != pooled.length || requested[d] < pooled[d]) {
                throw node.error("output_shape " + Shapes.format(requested) + " is smaller than the unpooled shape " + Shapes.format(pooled));
            }
        }
        return requested;
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer indices = kb.input(1);
        Buffer y = kb.output(0);
        long[] pooled = pooledFrom(node, x.shape());
        long[] shape = y.shape();
        long pooledCount = Shapes.elementCount(pooled, "unpooled");
        kb.loop(Shapes.elementCount(shape, y.name()), i -> kb.store(y, i, real(0)));
        kb.loop(Shapes.elementCount(x.shape(), x.name()), k -> {
            Local at = kb.local("index", cast(ScalarType.I64, kb.load(indices, k)));
            kb.when(and(ge(kb.get(at), idx(0)), lt(kb.get(at), idx(pooledCount))),
                () -> kb.store(y, placed(kb.get(at), pooled, shape), kb.load(x, k)));
        });
    }

    /** A flat index of the pooled shape, at the same position in the (larger or equal) output shape. */
    private static Expr placed(Expr at, long[] pooled, long[] shape) {
        if (Arrays.equals(pooled, shape)) return at;
        Expr placed = idx(0);
        long pooledStride = 1, stride = 1;
        for (int d = pooled.length - 1; d >= 0; d--) {
            placed = add(placed, mul(rem(div(at, pooledStride), pooled[d]), stride));
            pooledStride *= pooled[d];
            stride *= shape[d];
        }
        return placed;
    }

    private static long[] filled(int n, long value) {
        long[] a = new long[n];
        Arrays.fill(a, value);
        return a;
    }
}
