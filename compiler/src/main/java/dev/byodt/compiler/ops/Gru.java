package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;
import java.util.function.UnaryOperator;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * ONNX GRU. Per step, with f and g the activations (Sigmoid and Tanh by default), each gate's input
 * clipped when {@code clip} is set:
 * <pre>
 * z = f(x Wz + h Rz + Wbz + Rbz)      r = f(x Wr + h Rr + Wbr + Rbr)
 * n = g(x Wh + (r . h) Rh + Rbh + Wbh)          (linear_before_reset = 0)
 * n = g(x Wh + r . (h Rh + Rbh) + Wbh)          (linear_before_reset = 1)
 * h' = (1 - z) . n + z . h
 * </pre>
 * The gates are stacked in W, R and B in the order z, r, h.
 */
final class Gru implements Operator {
    static void registerAll() {
        Operators.register("GRU", new Gru());
    }

    private static final int UPDATE = 0, RESET = 1, NEW = 2;

    @Override
    public List<TensorType> inferTypes(Node node) {
        return layer(node).outputTypes();
    }

    private static RecurrentLayer layer(Node node) {
        RecurrentLayer layer = new RecurrentLayer(node, 3, 1, List.of("Sigmoid", "Tanh"));
        long linearBeforeReset = node.intAttr("linear_before_reset", 0);
        if (linearBeforeReset != 0 && linearBeforeReset != 1) {
            throw node.badAttribute("linear_before_reset", linearBeforeReset, "0 or 1");
        }
        return layer;
    }

    /**
     * The update and reset gates first, activated; then the new gate, whose sum needs the reset gate: with
     * linear_before_reset=0 the h part of the row [x, h] is overwritten with r . h, otherwise h Rh is summed
     * apart from x Wh and scaled by r.
     */
    @Override
    public void lower(Node node, KernelBuilder kb) {
        RecurrentLayer layer = layer(node);
        boolean linearBeforeReset = node.intAttr("linear_before_reset", 0) == 1;
        long hidden = layer.hidden;
        layer.lower(kb, (l, direction) -> {
            Buffer gates = l.gateValues();
            Buffer h = l.hiddenState();
            UnaryOperator<Expr> f = direction.activation(0), g = direction.activation(1);
            l.products(direction, 0, 2 * hidden, true, true,
                (j, sum) -> kb.store(gates, j, f.apply(l.clipped(l.plusBiases(sum, direction, j, true, true)))));
            UnaryOperator<Expr> newGate = j -> l.gateColumn(NEW, j);
            if (linearBeforeReset) {
                l.products(direction, NEW * hidden, hidden, true, false,
                    (j, sum) -> kb.store(gates, newGate.apply(j), l.plusBiases(sum, direction, newGate.apply(j), true, false)));
                l.products(direction, NEW * hidden, hidden, false, true, (j, sum) -> {
                    Expr reset = kb.load(gates, l.gateColumn(RESET, j));
                    Expr recurrent = mul(reset, l.plusBiases(sum, direction, newGate.apply(j), false, true));
                    kb.store(gates, newGate.apply(j), g.apply(l.clipped(add(kb.load(gates, newGate.apply(j)), recurrent))));
                });
            } else {
                kb.loop(hidden, k -> kb.store(l.row(), add(k, l.inputSize),
                    mul(kb.load(gates, l.gateColumn(RESET, k)), kb.load(h, k))));
                l.products(direction, NEW * hidden, hidden, true, true, (j, sum) ->
                    kb.store(gates, newGate.apply(j), g.apply(l.clipped(l.plusBiases(sum, direction, newGate.apply(j), true, true)))));
            }
            kb.loop(hidden, j -> {
                Expr update = kb.get(kb.local("z", kb.load(gates, l.gateColumn(UPDATE, j))));
                kb.store(h, j, add(mul(sub(real(1), update), kb.load(gates, newGate.apply(j))), mul(update, kb.load(h, j))));
            });
        });
    }
}
