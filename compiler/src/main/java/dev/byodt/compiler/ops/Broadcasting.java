package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.Shapes;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * ONNX multidirectional (numpy-style) broadcasting: shapes are aligned at their last dimension, missing
 * leading dimensions count as 1, and a dimension of 1 stretches to the other operands' size.
 */
final class Broadcasting {
    private Broadcasting() {}

    /** The shape every operand broadcasts to, or an error naming the shapes that do not fit together. */
    static long[] shape(Node node, List<long[]> shapes) {
        int rank = shapes.stream().mapToInt(s -> s.length).max().orElse(0);
        long[] out = new long[rank];
        Arrays.fill(out, 1);
        for (long[] s : shapes) {
            for (int i = 0; i < s.length; i++) {
                int d = rank - s.length + i;
                if (s[i] == 1 || s[i] == out[d]) continue;
                if (out[d] != 1) {
                    throw node.error("input shapes " + shapes.stream().map(Shapes::format).collect(Collectors.joining(", "))
                        + " do not broadcast");
                }
                out[d] = s[i];
            }
        }
        return out;
    }

    /** Whether an operand of this shape broadcasts to the target shape without changing it. */
    static boolean broadcastsTo(long[] operand, long[] target) {
        if (operand.length > target.length) return false;
        int offset = target.length - operand.length;
        for (int d = 0; d < operand.length; d++) {
            if (operand[d] != 1 && operand[d] != target[offset + d]) return false;
        }
        return true;
    }

    /**
     * The flat index, in a tensor of shape {@code inShape}, of the element that broadcasts to the output
     * element at {@code outIndex}. Dimensions of size 1 contribute nothing to a flat index, which is
     * exactly how they stretch, so only the leading dimensions the input lacks need dropping.
     */
    static Expr index(long[] inShape, Expr[] outIndex) {
        return flatIndex(inShape, Arrays.copyOfRange(outIndex, outIndex.length - inShape.length, outIndex.length));
    }

    /**
     * The flat index, in a tensor of shape {@code inShape} that broadcasts to {@code outShape}, of the element that
     * broadcasts to the output element at flat index {@code outIndex}: each dimension the input does not stretch
     * contributes its coordinate, (outIndex / the output's stride) modulo the output's extent, times the input's
     * stride. An input that stretches nothing is read at the output's index itself.
     */
    static Expr index(long[] inShape, long[] outShape, Expr outIndex) {
        if (Shapes.elementCount(inShape, "input") == Shapes.elementCount(outShape, "output")) return outIndex;
        Expr index = idx(0);
        long outStride = 1, inStride = 1;
        for (int d = outShape.length - 1; d >= 0; d--) {
            int inDimension = d - (outShape.length - inShape.length);
            long extent = inDimension >= 0 ? inShape[inDimension] : 1;
            if (extent != 1) {
                Expr coordinate = div(outIndex, outStride);
                if (d > 0) coordinate = rem(coordinate, outShape[d]);
                index = add(index, mul(coordinate, inStride));
                inStride *= extent;
            }
            outStride *= outShape[d];
        }
        return index;
    }

    /**
     * out = formula(inputs...) element by element, each input read at its broadcast position. When no input
     * broadcasts, the elements are visited by one flat loop: a single long run vectorizes with full vectors,
     * where a nest would run short rows (28 floats are 1.75 vectors of 16). Each element is its own, so threads
     * may divide the outermost loop.
     */
    static void map(KernelBuilder kb, Buffer out, List<Buffer> inputs, Function<List<Expr>, Expr> formula) {
        long[] shape = out.shape();
        if (inputs.stream().allMatch(b -> Arrays.equals(b.shape(), shape))) {
            kb.splitLoop(Shapes.elementCount(shape, out.name()), i ->
                kb.store(out, i, formula.apply(inputs.stream().map(b -> kb.load(b, i)).toList())));
            return;
        }
        kb.splitLoops(shape, i -> {
            List<Expr> args = inputs.stream().map(b -> kb.load(b, index(b.shape(), i))).toList();
            kb.store(out, flatIndex(shape, i), formula.apply(args));
        });
    }
}
