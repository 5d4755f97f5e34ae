package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.idx;

/**
 * ONNX's Shape operator: the input's dimensions as an int64 vector, optionally only those in
 * [start, end) (opset 15; negative values count from the end, out-of-range values clamp). Shapes are
 * static, so the kernel stores constants and reads nothing: the loader folds it at compile time.
 */
final class ShapeOf implements Operator {
    static void registerAll() {
        Operators.register("Shape", new ShapeOf());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        return List.of(new TensorType(ElementType.INT64, new long[] {dims(node).length}));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        long[] dims = dims(node);
        for (int k = 0; k < dims.length; k++) kb.store(kb.output(0), idx(k), constant(ScalarType.I64, dims[k]));
    }

    private static long[] dims(Node node) {
        long[] shape = node.input(0).type().shape();
        int rank = shape.length;
        long start = node.opsetVersion() >= 15 ? node.intAttr("start", 0) : 0;
        long end = node.opsetVersion() >= 15 ? node.intAttr("end", rank) : rank;
        int from = (int) Math.clamp(start < 0 ? start + rank : start, 0, rank);
        int to = (int) Math.clamp(end < 0 ? end + rank : end, 0, rank);
        return Arrays.copyOfRange(shape, from, Math.max(from, to));
    }
}
