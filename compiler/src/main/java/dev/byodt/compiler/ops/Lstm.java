package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * ONNX LSTM. Per step, with f, g, h the activations (Sigmoid, Tanh, Tanh by default), each gate's input
 * clipped when {@code clip} is set, and the peephole terms P only when the node has P:
 * <pre>
 * i = f(x Wi + h Ri + Wbi + Rbi + Pi . c)        o = f(x Wo + h Ro + Wbo + Rbo + Po . c')
 * f = f(x Wf + h Rf + Wbf + Rbf + Pf . c)        c' = f . c + i . g(x Wc + h Rc + Wbc + Rbc)
 * h' = o . h(c')
 * </pre>
 * The gates are stacked in W, R and B in the order i, o, f, c, and P in the order i, o, f. With
 * {@code input_forget} the forget gate is 1 - i, as in ONNX Runtime.
 */
final class Lstm implements Operator {
    static void registerAll() {
        Operators.register("LSTM", new Lstm());
    }

    private static final int INPUT = 0, OUTPUT = 1, FORGET = 2, CELL = 3;
    private static final int PEEPHOLES = 7;

    @Override
    public List<TensorType> inferTypes(Node node) {
        return layer(node).outputTypes();
    }

    private static RecurrentLayer layer(Node node) {
        RecurrentLayer layer = new RecurrentLayer(node, 4, 2, List.of("Sigmoid", "Tanh", "Tanh"));
        TensorType p = Operands.optionalFloatInput(node, PEEPHOLES, "P");
        if (p != null) layer.requireShape(p.shape(), "P", layer.directions, 3 * layer.hidden);
        long inputForget = node.intAttr("input_forget", 0);
        if (inputForget != 0 && inputForget != 1) throw node.badAttribute("input_forget", inputForget, "0 or 1");
        return layer;
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        RecurrentLayer layer = layer(node);
        boolean inputForget = node.intAttr("input_forget", 0) == 1;
        Buffer peepholes = kb.input(PEEPHOLES);
        long hidden = layer.hidden;
        layer.lower(kb, (l, direction) -> {
            Buffer gates = l.gateValues();
            Buffer c = l.cellState();
            l.products(direction, 0, 4 * hidden, true, true,
                (j, sum) -> kb.store(gates, j, l.plusBiases(sum, direction, j, true, true)));
            UnaryOperator<Expr> f = direction.activation(0), g = direction.activation(1), h = direction.activation(2);
            kb.loop(hidden, j -> {
                Expr previous = kb.get(kb.local("c", kb.load(c, j)));
                IntFunction<Expr> gate = gateIndex -> kb.load(gates, l.gateColumn(gateIndex, j));
                Expr input = kb.get(kb.local("i", f.apply(l.clipped(
                    withPeephole(kb, peepholes, layer, direction.at(), INPUT, j, gate.apply(INPUT), previous)))));
                Expr forget = inputForget ? sub(real(1), input) : f.apply(l.clipped(
                    withPeephole(kb, peepholes, layer, direction.at(), FORGET, j, gate.apply(FORGET), previous)));
                Expr cell = kb.get(kb.local("c", add(mul(forget, previous), mul(input, g.apply(l.clipped(gate.apply(CELL)))))));
                kb.store(c, j, cell);
                Expr output = f.apply(l.clipped(
                    withPeephole(kb, peepholes, layer, direction.at(), OUTPUT, j, gate.apply(OUTPUT), cell)));
                kb.store(l.hiddenState(), j, mul(output, h.apply(cell)));
            });
        });
    }

    /** A gate's sum plus its peephole term P[gate] . c, when the node has peepholes. */
    private static Expr withPeephole(KernelBuilder kb, Buffer peepholes, RecurrentLayer layer, Expr direction,
                                     int gate, Expr j, Expr sum, Expr cell) {
        if (peepholes == null) return sum;
        Expr weight = kb.load(peepholes, flatIndex(new long[] {layer.directions, 3 * layer.hidden}, direction,
            layer.gateColumn(gate, j)));
        return add(sum, mul(weight, cell));
    }
}
