package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;

/**
 * Split: consecutive parts along an axis, one per output. The part sizes are an attribute before opset 13
 * and an input after; without them the parts are equal, and from opset 18 attribute num_outputs allows
 * a smaller last part when the axis does not divide evenly.
 */
final class Split implements Operator {
    static void registerAll() {
        Operators.register("Split", new Split());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType in = node.input(0).type();
        int axis = Axes.normalize(node, node.intAttr("axis", 0), in.rank());
        List<TensorType> out = new ArrayList<>();
        for (long size : sizes(node, in.dim(axis))) {
            long[] shape = in.shape();
            shape[axis] = size;
            out.add(in.withShape(shape));
        }
        return out;
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer in = kb.input(0);
        int axis = Axes.normalize(node, node.intAttr("axis", 0), in.rank());
        long offset = 0;
        for (int k = 0; k < node.outputs().size(); k++) {
            Buffer out = kb.output(k);
            long start = offset;
            kb.loops(out.shape(), o -> {
                Expr[] i = o.clone();
                i[axis] = add(i[axis], start);
                kb.store(out, flatIndex(out.shape(), o), kb.load(in, flatIndex(in.shape(), i)));
            });
            offset += out.dim(axis);
        }
    }

    private static long[] sizes(Node node, long length) {
        int parts = node.outputs().size();
        long[] sizes = node.opsetVersion() < 13 ? node.intsAttr("split", null) : StaticInputs.ints(node, 1, "split");
        if (sizes != null) {
            if (sizes.length != parts || Arrays.stream(sizes).sum() != length || Arrays.stream(sizes).anyMatch(s -> s < 0)) {
                throw node.error("split sizes " + Arrays.toString(sizes) + " do not divide length " + length + " into " + parts + " outputs");
            }
            return sizes;
        }
        if (node.opsetVersion() >= 18 && node.hasAttribute("num_outputs")) {
            long declared = node.intAttr("num_outputs", parts);
            if (declared != parts) throw node.error("num_outputs=" + declared + " but the node has " + parts + " outputs");
            long part = Math.ceilDiv(length, parts);
            long last = length - part * (parts - 1);
            if (last < 0) throw node.error("cannot split length " + length + " into " + parts + " parts");
            long[] out = new long[parts];
            Arrays.fill(out, part);
            out[parts - 1] = last;
            return out;
        }
        if (length % parts != 0) throw node.error("cannot split length " + length + " into " + parts + " equal parts");
        long[] out = new long[parts];
        Arrays.fill(out, length / parts);
        return out;
    }
}
