package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * Index tensors that pick positions along an axis (Gather, GatherElements, GatherND, Scatter..., OneHot):
 * negative values count from the end. Out-of-range values are an error in ONNX; when the indices are
 * constant byodt reports them, and at run time it clamps them so that compiled code stays inside its buffers.
 */
final class Indices {
    private Indices() {}

    /** An index loaded at run time (any integer type) as an I64 position in [0, size). */
    static Expr position(Expr raw, long size) {
        Expr index = cast(ScalarType.I64, raw);
        Expr wrapped = select(lt(index, 0), add(index, size), index);
        return min(max(wrapped, 0), size - 1);
    }

    /** Checks constant indices against an axis of the given size; indices known only at run time pass. */
    static void checkConstant(Node node, Value indices, long size, int axis) {
        TypeRules.requireInteger(node, indices, "indices");
        if (!indices.isConstant()) return;
        for (long i : indices.constant().toLongArray()) {
            if (i < -size || i >= size) throw node.error("index " + i + " is out of range for axis " + axis + " of size " + size);
        }
    }
}
