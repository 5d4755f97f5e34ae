package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;

/**
 * One ONNX operator, defined once and independently of datatypes: how its output types follow from its
 * inputs (static shape inference), and the loop nest over scalar operations that computes it: a plain
 * reference nest, as the ONNX specification states the computation (what the interpreter runs when it folds
 * constants), and, for the operators that have them, schedules of the same sums tuned for the target.
 *
 * <p>Every method sees the node's input Values with their types set, and with their constants where the
 * input is known at compile time (weights, folded shape computations); Reshape reads its target shape
 * that way. Errors are {@code node.error("...")}: one line naming the node and the problem.
 */
public interface Operator {
    /** The type of each output, in order. */
    List<TensorType> inferTypes(Node node);

    /**
     * Checks what can be checked of the node without its input types, such as an element type an attribute
     * names, so that a node behind an unsupported one, whose inputs are never typed, still has its own
     * problems listed. Most operators have nothing to check then.
     */
    default void checkAttributes(Node node) {}

    /**
     * Emits the computation. {@code kb.input(i)} and {@code kb.output(i)} are the node's tensors as flat
     * buffers (float tensors have element type REAL). A kernel that loads only constant inputs is
     * evaluated at compile time, so shape-only subgraphs fold away without special cases.
     */
    void lower(Node node, KernelBuilder kb);

    /**
     * Emits the computation in the schedule tuned for {@code arithmetic}: vectors of its lanes (the target's, for
     * the datatype's storage width: {@link dev.byodt.compiler.target.Target#lanes}), and whether the node computes
     * in the machine's float32; with the same result, bit for bit, as {@link #lower(Node, KernelBuilder)}'s
     * reference loop nest, which operators without a tuned schedule emit.
     */
    default void lowerScheduled(Node node, KernelBuilder kb, NodeArithmetic arithmetic) { lower(node, kb); }
}
