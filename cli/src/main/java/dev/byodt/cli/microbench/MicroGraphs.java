package dev.byodt.cli.microbench;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The microbenchmark's graphs, built in memory: a chain of {@code depth} nodes of one binary operator, each
 * node taking the previous node's result and the same second input (a convolution's constant weights), {@code out = op(...op(op(x, y), y)..., y)}.
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

    /**
     * {@code depth} 3x3 convolutions of stride 1 and padding 1 with {@code channels} input and output channels on
     * {@code size} x {@code size} maps, all with the same constant {@code weights} (channels x channels x 3 x 3): ResNet-18's
     * layer-1 convolution at 64 channels and 56 x 56.
     */
    public static Graph convChain(long channels, long size, Tensor weights, int depth) {
        if (depth < 1) throw new IllegalArgumentException("a chain needs at least one node");
        long[] shape = {1, channels, size, size};
        Value x = floats("x", shape);
        Value w = floats("w", weights.shape());
        w.setConstant(weights);
        Map<String, Attribute> attributes = Map.of("kernel_shape", new Attribute.IntsAttr(new long[] {3, 3}),
            "pads", new Attribute.IntsAttr(new long[] {1, 1, 1, 1}));
        List<Node> nodes = new ArrayList<>();
        Value previous = x;
        for (int d = 1; d <= depth; d++) {
            Value result = floats(d == depth ? "out" : "conv" + d, shape);
            nodes.add(new Node("conv" + d, "Conv", "", OPSET, List.of(previous, w), List.of(result), attributes));
            previous = result;
        }
        return new Graph("conv-chain-" + depth, List.of(x), List.of(previous), nodes);
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
