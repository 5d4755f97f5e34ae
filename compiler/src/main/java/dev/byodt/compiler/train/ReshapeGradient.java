package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;

/**
 * Flatten and Reshape keep the elements in their row-major order, so the gradient of the data input is the
 * output's gradient as it is; Reshape's shape input has none.
 */
final class ReshapeGradient implements GradientRule {
    static void registerAll() {
        Gradients.register("Flatten", new ReshapeGradient());
        Gradients.register("Reshape", new ReshapeGradient());
    }

    @Override
    public boolean differentiable(Node node, int input) { return input == 0; }

    @Override
    public void lower(Node node, int input, GradientKernel g) {
        g.kb().loop(g.gradient().size(), i -> g.kb().store(g.gradient(), i, g.kb().load(g.outputGradient(), i)));
    }
}
