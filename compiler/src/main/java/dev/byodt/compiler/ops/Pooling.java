package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Shapes;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.or;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * ONNX MaxPool and AveragePool: the maximum or mean of each window of X (N x C x D1..Dn), per batch item
 * and channel. Padding is excluded from the maximum, and from the mean unless count_include_pad says so.
 * MaxPool also takes integer tensors (int8 and uint8 in ONNX), and gives on request its Indices output: where
 * in X (flattened, batch and channel included) each maximum is, the first of equal ones, the spatial position
 * row-major or, with storage_order=1, column-major.
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
        long storageOrder = node.intAttr("storage_order", 0);
        if (storageOrder != 0 && storageOrder != 1) throw node.error("attribute storage_order=" + storageOrder + " must be 0 or 1");
        long[] spatial = window(node, x).outputShape();
        long[] shape = new long[x.rank()];
        shape[0] = x.dim(0);
        shape[1] = x.dim(1);
        System.arraycopy(spatial, 0, shape, 2, spatial.length);
        TensorType y = new TensorType(x.elementType(), shape);
        return indicesWanted(node) ? List.of(y, new TensorType(ElementType.INT64, shape)) : List.of(y);
    }

    private boolean indicesWanted(Node node) { return !average && Operands.hasOutput(node, 1); }

    private TensorType input(Node node) {
        Value v = node.input(0);
        if (!average && v != null && v.type().elementType().isInteger()) return Operands.requireRank(node, v.type(), "X", 3);
        return Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 3);
    }

    private static WindowGeometry window(Node node, TensorType x) {
        long[] kernel = node.intsAttr("kernel_shape", null);
        if (kernel == null) throw node.error("attribute kernel_shape is missing");
        return WindowGeometry.of(node, Arrays.copyOfRange(x.shape(), 2, x.rank()), kernel);
    }

    /** A float MaxPool over two spatial axes without Indices takes {@link MaxPoolRows} where it fits; the rest, the reference nest. */
    @Override
    public void lowerScheduled(Node node, KernelBuilder kb, NodeArithmetic arithmetic) {
        TensorType x = input(node);
        WindowGeometry window = window(node, x);
        if (!average && !indicesWanted(node) && x.elementType() == ElementType.FLOAT32 && MaxPoolRows.fits(window)) {
            MaxPoolRows.lower(kb, window, kb.input(0), kb.output(0));
        }
        else lower(node, kb);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        WindowGeometry window = window(node, input(node));
        boolean countPadding = node.intAttr("count_include_pad", 0) != 0;
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        // One flat loop over the outputs: it vectorizes over a long run, loading each window's taps by gathers,
        // where the loop over a short output row (14 for LeNet-5) vectorized badly, across rows by scatters.
        Buffer indices = indicesWanted(node) ? kb.output(1) : null;
        boolean columnMajor = node.intAttr("storage_order", 0) == 1;
        long[] shape = y.shape();
        kb.loop(Shapes.elementCount(shape, y.name()), i -> {
            Expr[] at = Exprs.unflatten(shape, i);
            Expr[] out = Arrays.copyOfRange(at, 2, at.length);
            if (average) {
                kb.store(y, i, mean(kb, window, x, at[0], at[1], out, countPadding));
            } else {
                Local where = indices != null ? kb.local("argmax", idx(-1)) : null;
                kb.store(y, i, maximum(kb, window, x, at[0], at[1], out, where, columnMajor));
                if (indices != null) kb.store(indices, i, kb.get(where));
            }
        });
    }

    /**
     * The maximum of a window; {@code where}, unless null, gets the index of its first occurrence (-1 when the
     * window is empty).
     */
    private static Expr maximum(KernelBuilder kb, WindowGeometry window, Buffer x, Expr batch, Expr channel, Expr[] out,
                                Local where, boolean columnMajor) {
        // Padding never wins: only taps inside the input take part, and the maximum of none (a window wholly
        // in padding, which needs pads as large as the kernel) is -inf, or the least integer.
        Expr lowest = x.elementType() == ScalarType.REAL ? real(Double.NEGATIVE_INFINITY) : constant(x.elementType(), Integer.MIN_VALUE);
        Local best = kb.local("max", lowest);
        window.forEachTapUnrolled(kb, out, (position, tap) -> {
            Expr value = element(kb, x, batch, channel, position);
            if (where != null) {
                kb.assign(where, select(or(gt(value, kb.get(best)), lt(kb.get(where), 0)),
                    flatIndex(x.shape(), batch, channel, position, columnMajor), kb.get(where)));
            }
            kb.assign(best, max(kb.get(best), value));
        });
        return kb.get(best);
    }

    /** Where an element is in X flattened: batch and channel row-major, the spatial position as storage_order says. */
    private static Expr flatIndex(long[] shape, Expr batch, Expr channel, Expr[] position, boolean columnMajor) {
        if (!columnMajor) return Exprs.flatIndex(shape, WindowGeometry.indices(batch, channel, position));
        long plane = Operands.product(shape, 2, shape.length);
        Expr index = add(mul(batch, shape[1] * plane), mul(channel, plane));
        long stride = 1;
        for (int d = 0; d < position.length; d++) {
            index = add(index, mul(position[d], stride));
            stride *= shape[2 + d];
        }
        return index;
    }

    private static Expr mean(KernelBuilder kb, WindowGeometry window, Buffer x, Expr batch, Expr channel, Expr[] out,
                             boolean countPadding) {
        Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
        window.forEachTapUnrolled(kb, out, (position, tap) ->
            kb.assign(sum, accumulate(kb.get(sum), element(kb, x, batch, channel, position))));
        return window.mean(cast(ScalarType.REAL, kb.get(sum)), out, countPadding);
    }

    private static Expr element(KernelBuilder kb, Buffer x, Expr batch, Expr channel, Expr[] position) {
        return kb.load(x, Exprs.flatIndex(x.shape(), WindowGeometry.indices(batch, channel, position)));
    }
}
