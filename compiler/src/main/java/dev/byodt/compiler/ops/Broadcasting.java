package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.Shapes;

import java.util.ArrayList;
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
     * out = formula(inputs...) element by element, each input read at its broadcast position, in a loop nest over
     * the output's {@link #coalesced} dimensions. Each element is its own, so threads may divide the outermost loop.
     */
    static void map(KernelBuilder kb, Buffer out, List<Buffer> inputs, Function<List<Expr>, Expr> formula) {
        long[][] shapes = coalesced(out.shape(), inputs.stream().map(Buffer::shape).toList());
        kb.splitLoops(shapes[0], i -> {
            List<Expr> args = new ArrayList<>();
            for (int input = 0; input < inputs.size(); input++) args.add(kb.load(inputs.get(input), index(shapes[input + 1], i)));
            kb.store(out, flatIndex(shapes[0], i), formula.apply(args));
        });
    }

    /**
     * The output's shape and the operands' with neighbouring dimensions merged wherever every operand either
     * holds both whole or stretches both (and with the output's dimensions of 1 dropped), so that the innermost
     * loop of a nest over them is as long as the operands allow: first the output's, then each operand's, all of
     * one rank. Row-major layouts make each merged shape index the same elements. Where no operand stretches, one
     * flat run; a squeeze-and-excitation's scale of [1, C, 1, 1] over [1, C, 7, 7] becomes [C, 1] over [C, 49].
     * The nest's innermost dimension was the output's last, and a short row vectorizes badly or not at all
     * (28 floats are 1.75 vectors of 16; 7 none).
     */
    static long[][] coalesced(long[] out, List<long[]> operands) {
        List<long[]> merged = new ArrayList<>();
        boolean[] lastStretches = null;
        for (int d = 0; d < out.length; d++) {
            if (out[d] == 1) continue;
            boolean[] stretches = new boolean[operands.size()];
            for (int i = 0; i < operands.size(); i++) {
                long[] operand = operands.get(i);
                int inDimension = d - (out.length - operand.length);
                stretches[i] = inDimension < 0 || operand[inDimension] == 1;
            }
            long[] sizes = new long[operands.size() + 1];
            sizes[0] = out[d];
            for (int i = 0; i < operands.size(); i++) sizes[i + 1] = stretches[i] ? 1 : out[d];
            if (lastStretches != null && Arrays.equals(stretches, lastStretches)) {
                long[] last = merged.getLast();
                for (int k = 0; k < sizes.length; k++) last[k] *= sizes[k];
            } else {
                merged.add(sizes);
            }
            lastStretches = stretches;
        }
        if (merged.isEmpty()) {
            long[] one = new long[operands.size() + 1];
            Arrays.fill(one, 1);
            merged.add(one);
        }
        long[][] shapes = new long[operands.size() + 1][merged.size()];
        for (int d = 0; d < merged.size(); d++) {
            for (int k = 0; k < shapes.length; k++) shapes[k][d] = merged.get(d)[k];
        }
        return shapes;
    }
}
