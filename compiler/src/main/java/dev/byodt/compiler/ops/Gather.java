package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * Gather: picks entries of data along an axis by an index tensor; the output shape is data's with that
 * axis replaced by the indices' shape. Negative indices count from the end.
 */
final class Gather implements Operator {
    static void registerAll() {
        Operators.register("Gather", new Gather());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType data = node.input(0).type();
        Value indices = node.input(1);
        TypeRules.requireInteger(node, indices, "indices");
        int axis = Axes.normalize(node, node.intAttr("axis", 0), data.rank());
        long size = data.dim(axis);
        if (indices.isConstant()) {
            for (long i : indices.constant().toLongArray()) {
                if (i < -size || i >= size) throw node.error("index " + i + " is out of range for axis " + axis + " of size " + size);
            }
        }
        long[] d = data.shape(), q = indices.type().shape();
        long[] out = new long[d.length - 1 + q.length];
        System.arraycopy(d, 0, out, 0, axis);
        System.arraycopy(q, 0, out, axis, q.length);
        System.arraycopy(d, axis + 1, out, axis + q.length, d.length - axis - 1);
        return List.of(data.withShape(out));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer data = kb.input(0), indices = kb.input(1), out = kb.output(0);
        int axis = Axes.normalize(node, node.intAttr("axis", 0), data.rank());
        int q = indices.rank();
        long size = data.dim(axis);
        kb.loops(out.shape(), o -> {
            Expr raw = cast(ScalarType.I64, kb.load(indices, flatIndex(indices.shape(), Arrays.copyOfRange(o, axis, axis + q))));
            Expr wrapped = select(lt(raw, 0), add(raw, size), raw);
            // Indices out of range are an error in ONNX; clamping them keeps the compiled code inside its buffers.
            Expr clamped = min(max(wrapped, 0), size - 1);
            Expr[] source = new Expr[data.rank()];
            System.arraycopy(o, 0, source, 0, axis);
            source[axis] = clamped;
            System.arraycopy(o, axis + q, source, axis + 1, data.rank() - axis - 1);
            kb.store(out, flatIndex(out.shape(), o), kb.load(data, flatIndex(data.shape(), source)));
        });
    }
}
