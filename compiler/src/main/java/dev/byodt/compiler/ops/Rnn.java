package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;

/**
 * ONNX RNN, the simple recurrent layer: h' = f(x Wi + h Ri + Wbi + Rbi), f Tanh by default, its input
 * clipped when {@code clip} is set.
 */
final class Rnn implements Operator {
    static void registerAll() {
        Operators.register("RNN", new Rnn());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        return layer(node).outputTypes();
    }

    private static RecurrentLayer layer(Node node) {
        return new RecurrentLayer(node, 1, 1, List.of("Tanh"));
    }

    /** The sums read the row [x, h], a copy of h, so each new h[j] can be stored at once. */
    @Override
    public void lower(Node node, KernelBuilder kb) {
        RecurrentLayer layer = layer(node);
        layer.lower(kb, (l, direction) -> l.products(direction, 0, l.hidden, true, true, (j, sum) ->
            kb.store(l.hiddenState(), j, direction.activation(0).apply(l.clipped(l.plusBiases(sum, direction, j, true, true))))));
    }
}
