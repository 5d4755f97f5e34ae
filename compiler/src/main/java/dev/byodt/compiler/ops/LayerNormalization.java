package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.runtime.Shapes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.sqrt;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * ONNX LayerNormalization (opset 17): X normalised over its trailing dimensions from {@code axis} on, by
 * the mean and variance of each such block, then times Scale and plus the optional B, which broadcast to
 * X. The optional Mean and InvStdDev outputs hold each block's statistics (shape X's leading dimensions
 * followed by ones). Statistics are kept in float32, the only stash_type supported.
 */
final class LayerNormalization implements Operator {
    /** Fewer lanes than this and rows in blocks would not pay: the reference nest is kept. */
    private static final long LEAST_LANES = 8;

    static void registerAll() {
        Operators.register("LayerNormalization", new LayerNormalization());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 1);
        int axis = axis(node, x.rank());
        for (int i = 1; i <= 2; i++) {
            String role = i == 1 ? "Scale" : "B";
            TensorType p = i == 1 ? Operands.floatInput(node, i, role) : Operands.optionalFloatInput(node, i, role);
            if (p != null && !Broadcasting.broadcastsTo(p.shape(), x.shape())) {
                throw node.error("input " + role + " of shape " + Shapes.format(p.shape()) + " does not broadcast to X "
                    + Shapes.format(x.shape()));
            }
        }
        RunStatistics.requireFloat32Stash(node);
        List<TensorType> types = new ArrayList<>(List.of(x));
        long[] statistics = x.shape();
        Arrays.fill(statistics, axis, statistics.length, 1);
        for (int i = 1; i < node.outputs().size(); i++) types.add(Operands.floatTensor(statistics));
        return types;
    }

    private static int axis(Node node, int rank) {
        return Axes.normalize(node, node.intAttr("axis", -1), rank);
    }

    /** The reference nest: row after row, its statistics ({@link RunStatistics}), then its normalized elements. */
    @Override
    public void lower(Node node, KernelBuilder kb) {
        Rows rows = new Rows(node, kb);
        kb.loops(rows.leading, outer -> {
            RunStatistics statistics = RunStatistics.of(kb, kb.input(0), mul(flatIndex(rows.leading, outer), rows.size), rows.size);
            rows.normalize(kb, outer, kb.get(statistics.mean()), statistics.variance());
        });
    }

    /**
     * Where the sums run on the machine's vectors ({@link NodeArithmetic#tileLanes}), the rows in blocks of a
     * vector's lanes, each block's statistics with the loop over its rows innermost ({@link RowBlockStatistics}),
     * then each row normalized as in the reference nest: the same sums in the same order, so the same bits. The last
     * block reads the last row again where it runs past the rows, and normalizes nothing there. Threads divide the
     * blocks.
     */
    @Override
    public void lowerScheduled(Node node, KernelBuilder kb, NodeArithmetic arithmetic) {
        long lanes = arithmetic.tileLanes();
        Rows rows = new Rows(node, kb);
        long count = Shapes.elementCount(rows.leading, "rows");
        if (lanes < LEAST_LANES || count < lanes) {
            lower(node, kb);
            return;
        }
        Buffer x = kb.input(0);
        kb.splitLoop((count + lanes - 1) / lanes, block -> {
            Expr first = mul(block, lanes);
            RowBlockStatistics statistics = RowBlockStatistics.of(kb, lanes, rows.size,
                (r, i) -> kb.load(x, add(mul(min(add(first, r), count - 1), rows.size), i)));
            kb.loop(lanes, r -> kb.when(lt(add(first, r), count), () -> {
                Local mean = kb.local("mean", kb.load(statistics.means(), r));
                rows.normalize(kb, Exprs.unflatten(rows.leading, add(first, r)), kb.get(mean), kb.load(statistics.variances(), r));
            }));
        });
    }

    /** X as rows of its trailing dimensions from the axis on, and what normalizes each. */
    private static final class Rows {
        private final Buffer x;
        private final Buffer scale;
        private final Buffer bias;
        private final Buffer y;
        private final Buffer meanOut;
        private final Buffer invStdDevOut;
        private final double epsilon;
        private final long[] leading;
        private final long[] block;
        private final long size;

        Rows(Node node, KernelBuilder kb) {
            x = kb.input(0);
            scale = kb.input(1);
            bias = kb.input(2);
            y = kb.output(0);
            meanOut = Operands.hasOutput(node, 1) ? kb.output(1) : null;
            invStdDevOut = Operands.hasOutput(node, 2) ? kb.output(2) : null;
            long[] shape = x.shape();
            int axis = axis(node, shape.length);
            epsilon = node.floatAttr("epsilon", 1e-5f);
            leading = Arrays.copyOfRange(shape, 0, axis);
            block = Arrays.copyOfRange(shape, axis, shape.length);
            size = Shapes.elementCount(block, x.name());
        }

        /** Normalizes the row at leading indices {@code outer} by its {@code mean} and {@code variance}, and stores its statistics. */
        void normalize(KernelBuilder kb, Expr[] outer, Expr mean, Expr variance) {
            Expr row = flatIndex(leading, outer);
            Expr start = mul(row, size);
            Local invStdDev = kb.local("invStdDev", div(real(1), sqrt(add(variance, real(epsilon)))));
            kb.loops(block, inner -> {
                Expr[] at = concat(outer, inner);
                Expr flat = add(start, flatIndex(block, inner));
                Expr normalized = mul(sub(kb.load(x, flat), mean), kb.get(invStdDev));
                Expr scaled = mul(normalized, kb.load(scale, Broadcasting.index(scale.shape(), at)));
                kb.store(y, flat, bias == null ? scaled : add(scaled, kb.load(bias, Broadcasting.index(bias.shape(), at))));
            });
            if (meanOut != null) kb.store(meanOut, row, mean);
            if (invStdDevOut != null) kb.store(invStdDevOut, row, kb.get(invStdDev));
        }
    }

    private static Expr[] concat(Expr[] a, Expr[] b) {
        Expr[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
