package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;

/** The blocksize attribute of DepthToSpace and SpaceToDepth, which move b x b blocks of a 4-D [N, C, H, W] tensor. */
final class BlockSize {
    private BlockSize() {}

    static long of(Node node, TensorType x) {
        if (x.rank() != 4) throw node.error("input '" + node.input(0).name() + "' has shape " + x + "; it must be 4-D [N, C, H, W]");
        if (!node.hasAttribute("blocksize")) throw node.error("needs attribute blocksize");
        long b = node.intAttr("blocksize", 0);
        if (b < 1) throw node.badAttribute("blocksize", b, "a positive integer");
        return b;
    }
}
