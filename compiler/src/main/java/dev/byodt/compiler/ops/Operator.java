package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;

/**
 * One ONNX operator, defined once and independently of datatypes: how its output types follow from its
 * inputs (static shape inference), and the loop nest over scalar operations that computes it.
 *
 * <p>Both methods see the node's input Values with their types set, and with their constants where the
 * input is known at compile time (weights, folded shape computations); Reshape reads its target shape
 * that way. Errors are {@code node.error("...")}: one line naming the node and the problem.
 */
public interface Operator {
    /** The type of each output, in order. */
    List<TensorType> inferTypes(Node node);

    /**
     * Emits the computation. {@code kb.input(i)} and {@code kb.output(i)} are the node's tensors as flat
     * buffers (float tensors have element type REAL). A kernel that loads only constant inputs is
     * evaluated at compile time, so shape-only subgraphs fold away without special cases.
     */
    void lower(Node node, KernelBuilder kb);
}
