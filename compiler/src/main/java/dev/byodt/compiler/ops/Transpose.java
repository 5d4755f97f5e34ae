package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.flatIndex;

/** Transpose: output dimension j is input dimension perm[j]; perm defaults to reversing the dimensions. */
final class Transpose implements Operator {
    static void registerAll() {
        Operators.register("Transpose", new Transpose());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType in = node.input(0).type();
        int[] perm = permutation(node, in.rank());
        long[] out = new long[perm.length];
        for (int j = 0; j < perm.length; j++) out[j] = in.dim(perm[j]);
        return List.of(in.withShape(out));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer in = kb.input(0), out = kb.output(0);
        int[] perm = permutation(node, in.rank());
        kb.loops(out.shape(), o -> {
            Expr[] source = new Expr[perm.length];
            for (int j = 0; j < perm.length; j++) source[perm[j]] = o[j];
            kb.store(out, flatIndex(out.shape(), o), kb.load(in, flatIndex(in.shape(), source)));
        });
    }

    private static int[] permutation(Node node, int rank) {
        long[] perm = node.intsAttr("perm", null);
        if (perm == null) {
            int[] reversed = new int[rank];
            for (int j = 0; j < rank; j++) reversed[j] = rank - 1 - j;
            return reversed;
        }
        if (perm.length != rank) throw node.badAttribute("perm", perm, "a permutation of the " + rank + " axes");
        boolean[] seen = new boolean[rank];
        int[] out = new int[rank];
        for (int j = 0; j < rank; j++) {
            if (perm[j] < 0 || perm[j] >= rank || seen[(int) perm[j]]) {
                throw node.badAttribute("perm", perm, "a permutation of the " + rank + " axes");
            }
            out[j] = (int) perm[j];
            seen[out[j]] = true;
        }
        return out;
    }
}
