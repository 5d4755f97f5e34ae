package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * CumSum: running sums along an axis (a compile-time scalar input), from the end when reverse=1, each
 * excluding its own element when exclusive=1. Real sums run in the accumulator, so --accumulate applies and
 * each output rounds once from the running sum; integer sums wrap in their own type.
 */
final class CumSum implements Operator {
    static void registerAll() {
        Operators.register("CumSum", new CumSum());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = node.input(0).type();
        axis(node, x.rank());
        return List.of(x);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0), out = kb.output(0);
        long[] shape = x.shape();
        int axis = axis(node, shape.length);
        boolean exclusive = node.intAttr("exclusive", 0) != 0, reverse = node.intAttr("reverse", 0) != 0;
        boolean real = x.elementType() == ScalarType.REAL;
        ScalarType sumType = real ? ScalarType.ACC : x.elementType();
        long length = shape[axis];
        long[] outer = shape.clone();
        outer[axis] = 1;
        kb.loops(outer, o -> {
            Local sum = kb.local("sum", constant(sumType, 0));
            kb.loop(length, step -> {
                Expr[] at = o.clone();
                at[axis] = reverse ? sub(constant(ScalarType.I64, length - 1), step) : step;
                Expr index = flatIndex(shape, at);
                Expr element = kb.load(x, index);
                if (exclusive) kb.store(out, index, cast(out.elementType(), kb.get(sum)));
                kb.assign(sum, real ? accumulate(kb.get(sum), element) : add(kb.get(sum), element));
                if (!exclusive) kb.store(out, index, cast(out.elementType(), kb.get(sum)));
            });
        });
    }

    private static int axis(Node node, int rank) {
        long[] axis = StaticInputs.ints(node, 1, "axis");
        if (axis == null || axis.length != 1) throw node.error("needs a scalar axis input");
        return Axes.normalize(node, axis[0], rank);
    }
}
