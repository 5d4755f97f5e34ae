package dev.byodt.cli.microbench;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.ElementType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The microbenchmark's graphs, built in memory: a chain of {@code depth} nodes of one binary operator, each
 * node taking the previous node's result and the same second input, {@code out = op(...op(op(x, y), y)..., y)}.
 * Every node is one kernel over the whole tensor in the chosen datatype; the conversions from and to float32
 * happen once per graph input and output whatever the depth, which is what lets two depths be subtracted.
 */
public final class MicroGraphs {
    private static final int OPSET = 17;

    private MicroGraphs() {}

    /** {@code depth} element-wise {@code opType} nodes (Add, Mul) over vectors of {@code elements} floats. */
    public static Graph elementwiseChain(String opType, long elements, int depth) {
        long[] shape = {elements};
        return chain(opType, shape, shape, depth);
    }

    /** {@code depth} MatMul nodes of {@code n} x {@code n} matrices: ((x y) y) ... y. */
    public static Graph matMulChain(long n, int depth) {
        long[] square = {n, n};
        return chain("MatMul", square, square, depth);
    }

    private static Graph chain(String opType, long[] xShape, long[] yShape, int depth) {
        if (depth < 1) throw new IllegalArgumentException("a chain needs at least one node");
        Value x = floats("x", xShape);
        Value y = floats("y", yShape);
        List<Node> nodes = new ArrayList<>();
        Value previous = x;
        for (int d = 1; d <= depth; d++) {
            Value result = floats(d == depth ? "out" : opType.toLowerCase() + d, xShape);
            nodes.add(new Node(opType.toLowerCase() + d, opType, "", OPSET, List.of(previous, y), List.of(result), Map.of()));
            previous = result;
        }
        return new Graph(opType.toLowerCase() + "-chain-" + depth, List.of(x, y), List.of(previous), nodes);
    }

    private static Value floats(String name, long[] shape) {
        Value v = new Value(name);
        v.setType(new TensorType(ElementType.FLOAT32, shape));
        return v;
    }
}
