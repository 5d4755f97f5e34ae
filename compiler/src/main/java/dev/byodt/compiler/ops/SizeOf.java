package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.idx;

/**
 * ONNX's Size operator: the input's element count as an int64 scalar. Shapes are static, so the kernel
 * stores a constant and the loader folds it at compile time.
 */
final class SizeOf implements Operator {
    static void registerAll() {
        Operators.register("Size", new SizeOf());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        return List.of(new TensorType(ElementType.INT64, new long[0]));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        kb.store(kb.output(0), idx(0), constant(ScalarType.I64, node.input(0).type().elementCount()));
    }
}
