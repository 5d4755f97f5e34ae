package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * ONNX Hardmax: 1 at the first largest element of each row, 0 elsewhere, the rows as Softmax takes them (one
 * axis from opset 13, the tensor as a matrix split at the axis before). Elements rank as ArgMax ranks them:
 * through the datatype's comparisons, a NaN above every number.
 */
final class Hardmax implements Operator {
    static void registerAll() {
        Operators.register("Hardmax", new Hardmax());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.floatInput(node, 0, "input");
        Softmax.view(node, x.shape());
        return List.of(x);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        long[] v = Softmax.view(node, x.shape());
        long extent = v[1];
        long inner = v[2];
        if (extent == 0) return;
        kb.loop(v[0], o -> kb.loop(inner, i -> {
            Expr rowStart = add(mul(o, extent * inner), i);
            Local best = kb.local("best", kb.load(x, rowStart));
            Local position = kb.local("position", idx(0));
            kb.loop(extent, k -> {
                Expr candidate = kb.load(x, add(rowStart, mul(k, inner)));
                Expr above = NanOrder.above(candidate, kb.get(best));
                // Position first: 'above' reads best, so it must still be the old one.
                kb.assign(position, select(above, k, kb.get(position)));
                kb.assign(best, select(above, candidate, kb.get(best)));
            });
            kb.loop(extent, k -> kb.store(y, add(rowStart, mul(k, inner)), select(eq(k, kb.get(position)), real(1), real(0))));
        }));
    }
}
