package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Expr;

import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * Numpy broadcasting seen from one operand: which of its elements pairs with a position of the (larger)
 * result. Dimensions align at the right; the operand's size-1 dimensions repeat along the result's.
 * Gemm's C, MatMul's batch dimensions and LayerNormalization's scale and bias index their operands with it.
 */
final class BroadcastIndex {
    private BroadcastIndex() {}

    /** Whether an operand of this shape broadcasts to the target shape without changing it. */
    static boolean broadcastsTo(long[] operand, long[] target) {
        if (operand.length > target.length) return false;
        int offset = target.length - operand.length;
        for (int d = 0; d < operand.length; d++) {
            if (operand[d] != 1 && operand[d] != target[offset + d]) return false;
        }
        return true;
    }

    /** The operand's flat element index for the given result indices (one per result dimension). */
    static Expr of(long[] operand, Expr[] targetIndices) {
        int offset = targetIndices.length - operand.length;
        Expr flat = idx(0);
        long stride = 1;
        for (int d = operand.length - 1; d >= 0; d--) {
            if (operand[d] != 1) flat = add(flat, mul(targetIndices[offset + d], stride));
            stride *= operand[d];
        }
        return flat;
    }
}
