package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.le;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * Trilu: keeps the upper (upper=1, the default) or lower triangle of each matrix in the last two dimensions
 * and zeroes the rest. Element (i, j) is kept when j - i >= k (upper) or j - i <= k (lower), with the
 * diagonal offset k an optional scalar int64 input (default 0), which may be known only at run time.
 */
final class Trilu implements Operator {
    static void registerAll() {
        Operators.register("Trilu", new Trilu());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = node.input(0).type();
        if (x.rank() < 2) throw node.error("input '" + node.input(0).name() + "' has rank " + x.rank() + "; Trilu needs rank 2 or more");
        Value k = node.input(1);
        if (k != null) {
            TypeRules.requireInteger(node, k, "k");
            if (k.type().elementCount() != 1) throw node.error("k input '" + k.name() + "' must be a scalar, not " + k.type());
        }
        return List.of(x);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0), out = kb.output(0);
        boolean upper = node.intAttr("upper", 1) != 0;
        Expr k = kb.input(1) == null ? idx(0) : cast(ScalarType.I64, kb.load(kb.input(1), idx(0)));
        int rank = x.rank();
        Expr zero = constant(out.elementType(), 0);
        kb.loops(out.shape(), o -> {
            Expr offset = sub(o[rank - 1], o[rank - 2]);
            Expr kept = upper ? ge(offset, k) : le(offset, k);
            Expr at = flatIndex(out.shape(), o);
            kb.store(out, at, select(kept, kb.load(x, at), zero));
        });
    }
}
