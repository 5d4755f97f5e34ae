package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * Range: start, start + delta, ... while before limit; max(ceil((limit - start) / delta), 0) elements. The
 * three scalar inputs decide the length, so they must be known at compile time. Element i is computed as
 * start + i * delta, in the tensor's type (two roundings for a real datatype), rather than by ONNX's
 * repeated additions, whose rounding errors pile up along the sequence.
 */
final class Range implements Operator {
    static void registerAll() {
        Operators.register("Range", new Range());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        List<Value> inputs = List.of(input(node, 0, "start"), input(node, 1, "limit"), input(node, 2, "delta"));
        TypeRules.common(node, inputs);
        double start = scalar(node, inputs.get(0)), limit = scalar(node, inputs.get(1)), delta = scalar(node, inputs.get(2));
        if (delta == 0) throw node.error("delta is 0");
        boolean integer = inputs.getFirst().type().elementType().isInteger();
        long count = integer
            ? Math.ceilDiv((long) limit - (long) start, (long) delta)
            : (long) Math.ceil((limit - start) / delta);
        return List.of(inputs.getFirst().type().withShape(new long[] {Math.max(count, 0)}));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer out = kb.output(0);
        ScalarType type = out.elementType();
        Expr start = kb.load(kb.input(0), idx(0)), delta = kb.load(kb.input(2), idx(0));
        kb.loop(out.size(), i -> kb.store(out, i, add(start, mul(cast(type, i), delta))));
    }

    private static Value input(Node node, int i, String role) {
        Value v = node.input(i);
        if (v == null) throw node.error("needs input " + role);
        if (!v.isConstant()) {
            throw node.error(role + " input '" + v.name() + "' must be known at compile time "
                + "(it decides the output's length; fix it with --bind " + v.name() + "=FILE.pb)");
        }
        return v;
    }

    private static double scalar(Node node, Value v) {
        if (v.type().elementCount() != 1) throw node.error("input '" + v.name() + "' must be a scalar, not " + v.type());
        return v.constant().getDouble(0);
    }
}
