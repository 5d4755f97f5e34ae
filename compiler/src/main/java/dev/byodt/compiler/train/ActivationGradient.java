package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Expr;

import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * The gradients of elementwise activations, dX = dY * f'(X), with f' written as PyTorch's backward kernels
 * write it (from the output where that is how they compute it), so that float32 results agree closely.
 */
final class ActivationGradient implements GradientRule {
    /** dX from the node, X, Y and dY at one element. */
    interface Derivative {
        Expr of(Node node, Expr x, Expr y, Expr dy);
    }

    private final Derivative derivative;

    private ActivationGradient(Derivative derivative) {
        this.derivative = derivative;
    }

    static void registerAll() {
        // relu_backward: grad where the result is positive, else 0.
        Gradients.register("Relu", new ActivationGradient((node, x, y, dy) -> select(gt(y, real(0)), dy, real(0))));
        // leaky_relu_backward: grad where the input is positive, else grad * alpha.
        Gradients.register("LeakyRelu", new ActivationGradient((node, x, y, dy) ->
            select(gt(x, real(0)), dy, mul(dy, real(node.floatAttr("alpha", 0.01f))))));
        // tanh_backward: grad * (1 - y*y).
        Gradients.register("Tanh", new ActivationGradient((node, x, y, dy) -> mul(dy, sub(real(1), mul(y, y)))));
        // sigmoid_backward: grad * (1 - y) * y.
        Gradients.register("Sigmoid", new ActivationGradient((node, x, y, dy) -> mul(mul(dy, sub(real(1), y)), y)));
    }

    @Override
    public boolean differentiable(Node node, int input) { return input == 0; }

    @Override
    public void lower(Node node, int input, GradientKernel g) {
        g.kb().loop(g.gradient().size(), i -> g.kb().store(g.gradient(), i, derivative.of(node,
            g.kb().load(g.input(0), i), g.kb().load(g.output(), i), g.kb().load(g.outputGradient(), i))));
    }
}
