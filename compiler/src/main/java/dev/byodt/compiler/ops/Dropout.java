package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ElementType;

import java.util.ArrayList;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.constant;

/**
 * Dropout at inference: the output is the input and the optional mask output is all true (bool from opset
 * 10, before that ones of the input's type), as nothing is dropped. Training mode (a training_mode input from opset 12 that is not a constant false, or
 * is_test=0 before opset 7) would need random numbers, and byodt compiles for inference.
 */
final class Dropout implements Operator {
    static void registerAll() {
        Operators.register("Dropout", new Dropout());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        Value training = node.input(2);
        if (training != null && (!training.isConstant() || training.constant().getDouble(0) != 0)) {
            throw node.error("training mode is not supported (byodt compiles for inference)");
        }
        if (node.opsetVersion() < 7 && node.intAttr("is_test", 0) == 0) {
            throw node.error("is_test=0 (training mode) is not supported (byodt compiles for inference)");
        }
        TensorType in = node.input(0).type();
        List<TensorType> types = new ArrayList<>(List.of(in));
        if (node.outputs().size() > 1) {
            types.add(new TensorType(node.opsetVersion() >= 10 ? ElementType.BOOL : in.elementType(), in.shape()));
        }
        return types;
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer in = kb.input(0), out = kb.output(0);
        kb.loop(out.size(), i -> kb.store(out, i, kb.load(in, i)));
        if (node.outputs().size() > 1) {
            Buffer mask = kb.output(1);
            kb.loop(mask.size(), i -> kb.store(mask, i, constant(mask.elementType(), 1)));
        }
    }
}
