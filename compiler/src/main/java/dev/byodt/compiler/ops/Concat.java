package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.Shapes;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;

/** Concat: the inputs one after another along an axis (default 1 in opset 1, required after). */
final class Concat implements Operator {
    static void registerAll() {
        Operators.register("Concat", new Concat());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        List<Value> inputs = node.inputs();
        if (inputs.isEmpty()) throw node.error("needs at least one input");
        TypeRules.common(node, inputs);
        TensorType first = inputs.getFirst().type();
        int axis = axis(node, first.rank());
        long[] out = first.shape();
        out[axis] = 0;
        for (Value v : inputs) {
            long[] s = v.type().shape();
            for (int d = 0; d < out.length; d++) {
                if (s.length != out.length || (d != axis && s[d] != out[d])) {
                    throw node.error("input '" + v.name() + "' of shape " + Shapes.format(s)
                        + " does not fit shape " + Shapes.format(first.shape()) + " along axis " + axis);
                }
            }
            out[axis] += s[axis];
        }
        return List.of(first.withShape(out));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer out = kb.output(0);
        int axis = axis(node, out.rank());
        long offset = 0;
        for (int k = 0; k < kb.inputCount(); k++) {
            Buffer in = kb.input(k);
            long start = offset;
            kb.loops(in.shape(), i -> {
                Expr[] o = i.clone();
                o[axis] = add(o[axis], start);
                kb.store(out, flatIndex(out.shape(), o), kb.load(in, flatIndex(in.shape(), i)));
            });
            offset += in.dim(axis);
        }
    }

    private static int axis(Node node, int rank) {
        if (!node.hasAttribute("axis") && node.opsetVersion() >= 4) throw node.error("needs attribute axis");
        return Axes.normalize(node, node.intAttr("axis", 1), rank);
    }
}
