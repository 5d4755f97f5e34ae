package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.pow;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * ONNX LRN: each element of X (N x C x D1..Dn) divided by (bias + alpha / size * sum of squares)^beta,
 * the sum over a window of {@code size} neighbouring channels (floor((size-1)/2) before, ceil after),
 * cut off at the first and last channel.
 */
final class LocalResponseNormalization implements Operator {
    static void registerAll() {
        Operators.register("LRN", new LocalResponseNormalization());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 2);
        size(node);
        return List.of(x);
    }

    private static long size(Node node) {
        long size = node.intAttr("size", 0);
        if (size < 1) throw node.badAttribute("size", size, "a window of 1 or more channels");
        return size;
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        long size = size(node);
        double alpha = node.floatAttr("alpha", 1e-4f);
        double beta = node.floatAttr("beta", 0.75f);
        double bias = node.floatAttr("bias", 1);
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        long channels = x.dim(1);
        long spatial = Operands.product(x.shape(), 2, x.rank());
        long before = (size - 1) / 2;
        kb.loop(x.dim(0), n -> kb.loop(channels, c -> kb.loop(spatial, s -> {
            Expr batchStart = mul(n, channels * spatial);
            Local squares = kb.local("squares", constant(ScalarType.ACC, 0));
            kb.loop(size, k -> {
                Expr neighbour = sub(add(c, k), before);
                kb.when(and(ge(neighbour, 0), lt(neighbour, channels)), () -> {
                    Expr v = kb.load(x, add(batchStart, add(mul(neighbour, spatial), s)));
                    kb.assign(squares, mac(kb.get(squares), v, v));
                });
            });
            Expr at = add(batchStart, add(mul(c, spatial), s));
            Expr scale = add(real(bias), mul(real(alpha / size), cast(ScalarType.REAL, kb.get(squares))));
            kb.store(y, at, div(kb.load(x, at), pow(scale, real(beta))));
        })));
    }
}
