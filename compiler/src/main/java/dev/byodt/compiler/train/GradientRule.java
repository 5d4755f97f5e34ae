package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;

import java.util.Optional;

/**
 * How one operator passes the loss's gradient back to its inputs: a loop nest over scalar operations in the
 * abstract REAL type, like the operator's forward nest, so that it runs in every datatype through the same
 * datatype lowering and code generation.
 */
public interface GradientRule {
    /** Why this node has no gradient (an attribute or a shape the rule does not cover), or empty when it has one. */
    default Optional<String> unsupported(Node node) { return Optional.empty(); }

    /** Whether input {@code input} carries a gradient: real-valued data, not a shape, axes or an index. */
    boolean differentiable(Node node, int input);

    /** Emits into {@code g} the loop nest that writes the gradient of the loss with respect to input {@code input}. */
    void lower(Node node, int input, GradientKernel g);
}
