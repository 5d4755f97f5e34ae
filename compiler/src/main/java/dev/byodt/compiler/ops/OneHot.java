package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * OneHot: a new axis of length depth (a compile-time scalar) at position axis (default -1, the last); the
 * element at the position each index names is values[1] ("on"), every other values[0] ("off"). Real indices
 * are truncated to integers; negative ones count from the end; those outside [-depth, depth) give a row of
 * "off", as ONNX says. The output takes the type of values.
 */
final class OneHot implements Operator {
    static void registerAll() {
        Operators.register("OneHot", new OneHot());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType indices = node.input(0).type();
        long depth = depth(node);
        Value values = node.input(2);
        if (values == null || values.type().elementCount() != 2) throw node.error("needs a values input of two elements [off, on]");
        int axis = axis(node, indices.rank());
        long[] q = indices.shape();
        long[] out = new long[q.length + 1];
        System.arraycopy(q, 0, out, 0, axis);
        out[axis] = depth;
        System.arraycopy(q, axis, out, axis + 1, q.length - axis);
        return List.of(new TensorType(values.type().elementType(), out));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer indices = kb.input(0), values = kb.input(2), out = kb.output(0);
        int axis = axis(node, indices.rank());
        long depth = out.dim(axis);
        Expr off = kb.load(values, idx(0)), on = kb.load(values, idx(1));
        kb.loops(out.shape(), o -> {
            Expr[] at = new Expr[indices.rank()];
            System.arraycopy(o, 0, at, 0, axis);
            System.arraycopy(o, axis + 1, at, axis, at.length - axis);
            Expr index = cast(ScalarType.I64, kb.load(indices, flatIndex(indices.shape(), at)));
            Expr position = select(lt(index, 0), add(index, depth), index);
            kb.store(out, flatIndex(out.shape(), o), select(eq(position, o[axis]), on, off));
        });
    }

    private static long depth(Node node) {
        Value depth = node.input(1);
        if (depth == null) throw node.error("needs a depth input");
        if (!depth.isConstant()) {
            throw node.error("depth input '" + depth.name() + "' must be known at compile time "
                + "(it decides the output's shape; fix it with --bind " + depth.name() + "=FILE.pb)");
        }
        if (depth.type().elementCount() != 1) throw node.error("depth input '" + depth.name() + "' must be a scalar, not " + depth.type());
        long d = (long) depth.constant().getDouble(0);
        if (d < 1) throw node.error("depth " + d + " is not positive");
        return d;
    }

    /** The new axis, in [-rank - 1, rank] of the indices. */
    private static int axis(Node node, int indicesRank) {
        return Axes.normalize(node, node.intAttr("axis", -1), indicesRank + 1);
    }
}
