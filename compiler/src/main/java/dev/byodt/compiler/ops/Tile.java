package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * Tile (opset 6 on): the input repeated repeats[d] times along each dimension d; repeats is a compile-time
 * int64 input with one entry per dimension. Output element o copies input element o mod shape.
 */
final class Tile implements Operator {
    static void registerAll() {
        Operators.register("Tile", new Tile());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        if (node.opsetVersion() < 6) throw node.error("Tile before opset 6 (tiles and axis inputs) is not supported");
        TensorType in = node.input(0).type();
        long[] repeats = StaticInputs.ints(node, 1, "repeats");
        if (repeats == null || repeats.length != in.rank()) {
            throw node.error("repeats must have one entry per dimension of the input (" + in.rank() + ")");
        }
        long[] out = in.shape();
        for (int d = 0; d < out.length; d++) {
            if (repeats[d] < 0) throw node.error("repeats has a negative entry " + repeats[d]);
            out[d] *= repeats[d];
        }
        return List.of(in.withShape(out));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer in = kb.input(0), out = kb.output(0);
        long[] shape = in.shape();
        kb.loops(out.shape(), o -> {
            Expr[] source = new Expr[o.length];
            for (int d = 0; d < o.length; d++) source[d] = shape[d] == out.dim(d) ? o[d] : rem(o[d], shape[d]);
            kb.store(out, flatIndex(out.shape(), o), kb.load(in, flatIndex(shape, source)));
        });
    }
}
