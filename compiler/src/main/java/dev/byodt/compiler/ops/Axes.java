package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;

/** Axis attributes and inputs: negative values count from the end, as ONNX allows from opset 11 on. */
final class Axes {
    private Axes() {}

    /** An axis in [-rank, rank) as an index in [0, rank). */
    static int normalize(Node node, long axis, int rank) {
        if (axis < -rank || axis >= rank) {
            throw node.error("axis " + axis + " is out of range for a tensor of rank " + rank);
        }
        return (int) (axis < 0 ? axis + rank : axis);
    }

    /** A list of distinct axes, each normalized; repeated axes are an error. */
    static int[] normalizeAll(Node node, long[] axes, int rank) {
        int[] out = new int[axes.length];
        boolean[] seen = new boolean[rank];
        for (int k = 0; k < axes.length; k++) {
            out[k] = normalize(node, axes[k], rank);
            if (seen[out[k]]) throw node.error("axis " + axes[k] + " is given twice");
            seen[out[k]] = true;
        }
        return out;
    }
}
