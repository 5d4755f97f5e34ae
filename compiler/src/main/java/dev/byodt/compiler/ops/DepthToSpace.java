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
 * DepthToSpace: [N, C, H, W] to [N, C / b², H * b, W * b], each output pixel (h * b + i, w * b + j) of channel
 * c taken from input channel (i * b + j) * C / b² + c (mode DCR, the default) or c * b² + i * b + j (CRD).
 */
final class DepthToSpace implements Operator {
    static void registerAll() {
        Operators.register("DepthToSpace", new DepthToSpace());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = node.input(0).type();
        long b = BlockSize.of(node, x);
        if (x.dim(1) % (b * b) != 0) throw node.error("channels " + x.dim(1) + " are not a multiple of blocksize² " + b * b);
        mode(node);
        return List.of(x.withShape(new long[] {x.dim(0), x.dim(1) / (b * b), x.dim(2) * b, x.dim(3) * b}));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0), out = kb.output(0);
        long b = BlockSize.of(node, node.input(0).type());
        boolean dcr = mode(node);
        long channels = out.dim(1);
        kb.loops(out.shape(), o -> {
            Expr i = rem(o[2], b), j = rem(o[3], b);
            Expr block = add(mul(i, b), j);
            Expr channel = dcr ? add(mul(block, channels), o[1]) : add(mul(o[1], b * b), block);
            Expr source = flatIndex(x.shape(), o[0], channel, div(o[2], b), div(o[3], b));
            kb.store(out, flatIndex(out.shape(), o), kb.load(x, source));
        });
    }

    /** True for DCR, false for CRD. */
    private static boolean mode(Node node) {
        String mode = node.stringAttr("mode", "DCR");
        if (!mode.equals("DCR") && !mode.equals("CRD")) throw node.badAttribute("mode", mode, "DCR or CRD");
        return mode.equals("DCR");
    }
}
