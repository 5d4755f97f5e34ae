package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;
import java.util.function.IntFunction;

import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.real;

/**
 * Clip: y = min(max(x, lo), hi), so hi wins when lo > hi, as in numpy.clip. Before opset 11 the bounds
 * are float attributes; from opset 11 they are optional scalar inputs (possibly computed at run time),
 * and from opset 12 x may be an integer tensor. An absent bound is no bound.
 */
final class Clip implements Operator {
    static void registerAll() {
        Operators.register("Clip", new Clip());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        Value x = node.input(0);
        if (node.opsetVersion() < 11) TypeRules.requireFloat(node, x);
        for (int i = 1; i <= 2; i++) {
            Value bound = node.input(i);
            if (bound == null) continue;
            TypeRules.common(node, List.of(x, bound));
            if (bound.type().elementCount() != 1) {
                throw node.error("bound '" + bound.name() + "' must be a scalar, not of shape " + bound.type());
            }
        }
        return List.of(x.type());
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Broadcasting.map(kb, kb.output(0), List.of(kb.input(0)), x -> clipped(node, x.getFirst(), i -> kb.load(kb.input(i), idx(0))));
    }

    /** x clipped; {@code boundInput} gives the value of the node's input i (1 or 2) where the node has it. */
    static Expr clipped(Node node, Expr x, IntFunction<Expr> boundInput) {
        Expr lo = bound(node, 1, "min", boundInput);
        Expr hi = bound(node, 2, "max", boundInput);
        Expr y = x;
        if (lo != null) y = max(y, lo);
        if (hi != null) y = min(y, hi);
        return y;
    }

    /** The bound as an expression, or null when there is none. */
    private static Expr bound(Node node, int input, String attribute, IntFunction<Expr> boundInput) {
        if (node.opsetVersion() < 11) {
            return node.hasAttribute(attribute) ? real(node.floatAttr(attribute, 0)) : null;
        }
        return node.input(input) == null ? null : boundInput.apply(input);
    }
}
