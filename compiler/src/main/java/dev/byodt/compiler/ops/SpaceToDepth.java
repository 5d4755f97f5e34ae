package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * SpaceToDepth, the inverse of DepthToSpace in DCR mode: [N, C, H, W] to [N, C * b², H / b, W / b], output
 * channel (i * b + j) * C + c taken from input pixel (h * b + i, w * b + j) of channel c.
 */
final class SpaceToDepth implements Operator {
    static void registerAll() {
        Operators.register("SpaceToDepth", new SpaceToDepth());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = node.input(0).type();
        long b = BlockSize.of(node, x);
        if (x.dim(2) % b != 0 || x.dim(3) % b != 0) {
            throw node.error("height " + x.dim(2) + " and width " + x.dim(3) + " must be multiples of blocksize " + b);
        }
        return List.of(x.withShape(new long[] {x.dim(0), x.dim(1) * b * b, x.dim(2) / b, x.dim(3) / b}));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0), out = kb.output(0);
        long b = BlockSize.of(node, node.input(0).type());
        long channels = x.dim(1);
        kb.loops(out.shape(), o -> {
            Expr block = div(o[1], channels), c = rem(o[1], channels);
            Expr h = add(mul(o[2], b), div(block, b)), w = add(mul(o[3], b), rem(block, b));
            kb.store(out, flatIndex(out.shape(), o), kb.load(x, flatIndex(x.shape(), o[0], c, h, w)));
        });
    }
}
