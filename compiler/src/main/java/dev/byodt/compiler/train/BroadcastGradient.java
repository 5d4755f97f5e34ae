package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.neg;

/**
 * Add, Sub and Mul with numpy broadcasting: dA sums dY (Mul: dY * B) over the axes A was stretched along, and
 * likewise dB (Sub: -dY; Mul: dY * A).
 */
final class BroadcastGradient implements GradientRule {
    private enum Kind { ADD, SUB, MUL }

    private final Kind kind;

    private BroadcastGradient(Kind kind) {
        this.kind = kind;
    }

    static void registerAll() {
        Gradients.register("Add", new BroadcastGradient(Kind.ADD));
        Gradients.register("Sub", new BroadcastGradient(Kind.SUB));
        Gradients.register("Mul", new BroadcastGradient(Kind.MUL));
    }

    @Override
    public boolean differentiable(Node node, int input) { return input < 2; }

    @Override
    public void lower(Node node, int input, GradientKernel g) {
        KernelBuilder kb = g.kb();
        Buffer dy = g.outputGradient();
        long[] yShape = dy.shape();
        Buffer other = g.input(1 - input);
        Unbroadcast.reduce(kb, yShape, g.gradient(), y -> {
            Expr term = kb.load(dy, flatIndex(yShape, y));
            return switch (kind) {
                case ADD -> term;
                case SUB -> input == 0 ? term : neg(term);
                case MUL -> mul(term, kb.load(other, Unbroadcast.operandIndex(other, y)));
            };
        });
    }
}
