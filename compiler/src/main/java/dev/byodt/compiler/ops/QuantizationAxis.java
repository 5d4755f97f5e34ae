package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.Arrays;
import java.util.function.BiConsumer;

import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;

/**
 * Which scale and zero point quantize an element, for QuantizeLinear and DequantizeLinear: one pair for the
 * whole tensor (a scalar or one-element scale), one per slice along {@code axis} (a 1-D scale, opset 13), or
 * one per block of {@code block_size} consecutive elements along the axis (a scale of the input's rank whose
 * axis dimension is the number of blocks, opset 21).
 */
record QuantizationAxis(int axis, long blockSize) {
    /** The layout the node's scale (input 1) has against its quantized or real input 0, or an error. */
    static QuantizationAxis of(Node node) {
        if (node.input(1) == null) throw node.error("needs a scale input");
        long[] x = node.input(0).type().shape();
        long[] scale = node.input(1).type().shape();
        long rawAxis = node.intAttr("axis", 1);
        long blockSize = node.intAttr("block_size", 0);
        if (blockSize < 0) throw node.badAttribute("block_size", blockSize, "a non-negative block size");
        long elements = Arrays.stream(scale).reduce(1, (a, b) -> a * b);
        if (blockSize == 0 && scale.length <= 1 && elements == 1) return new QuantizationAxis(-1, 0);
        if (rawAxis < -x.length || rawAxis >= x.length) throw node.badAttribute("axis", rawAxis, "an axis of the rank-" + x.length + " input");
        int axis = (int) (rawAxis < 0 ? rawAxis + x.length : rawAxis);
        if (blockSize == 0) {
            if (scale.length != 1 || scale[0] != x[axis]) {
                throw node.error("a per-axis scale must have shape [" + x[axis] + "] (input dimension " + axis + "), not "
                    + Arrays.toString(scale));
            }
            return new QuantizationAxis(axis, 0);
        }
        long[] expected = x.clone();
        expected[axis] = (x[axis] + blockSize - 1) / blockSize;
        if (!Arrays.equals(scale, expected)) {
            throw node.error("a blocked scale (block_size " + blockSize + ") must have shape " + Arrays.toString(expected)
                + ", not " + Arrays.toString(scale));
        }
        return new QuantizationAxis(axis, blockSize);
    }

    /** Visits every element of input 0 with its flat index and the flat index of its scale and zero point. */
    void forEachElement(KernelBuilder kb, BiConsumer<Expr, Expr> body) {
        long[] shape = kb.input(0).shape();
        kb.loops(shape, i -> body.accept(flatIndex(shape, i), parameterIndex(kb.input(1), i)));
    }

    private Expr parameterIndex(Buffer scale, Expr[] index) {
        if (axis < 0) return idx(0);
        if (blockSize == 0) return index[axis];
        Expr[] block = index.clone();
        block[axis] = div(index[axis], blockSize);
        return flatIndex(scale.shape(), block);
    }
}
