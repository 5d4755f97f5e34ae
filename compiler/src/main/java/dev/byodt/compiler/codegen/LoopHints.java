package dev.byodt.compiler.codegen;

import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMMetadataRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * Hints to LLVM's loop passes, as llvm.loop metadata on a loop's latch: what {@link InterleavedLoops} asks, and
 * for a loop that spans a few whole vectors ({@link dev.byodt.compiler.kernel.LoopVar#spansVectors()}, a row of
 * a register tile), vectorizing before unrolling. O3 fully unrolls such a loop of 16 or 32 iterations before the
 * vectorizer runs, into as many scalar operations, which the SLP vectorizer then puts back into vectors, while
 * dead-store elimination and GVN work through the scalar copies of the tile's accumulators: that was two thirds
 * of the O3 time of mobilenet_v2's float32 convolutions (2.1 of 3.1 s of CPU) and the largest functions the
 * backend got. Unrolled only once vectorized, the loop becomes the one or two vector operations a row of the
 * tile is, with the same accumulators kept in registers.
 */
final class LoopHints {
    private LoopHints() {}

    /**
     * Whether the row {@code loop} should be vectorized before it is unrolled: not where it computes in double
     * (the exact sums' tiles of 8-lane doubles), whose rows, so marked, LLVM left as loops with the tile's sums in
     * memory: {@code bench-dtypes --accumulate exact}'s convolution took 4 times float32's time, not 1.4. Unrolled first,
     * as O3 does by default, they keep their sums in registers.
     */
    static boolean vectorizesFirst(Stmt.For loop) {
        if (!loop.var().spansVectors()) return false;
        boolean[] inDouble = {false};
        KernelWalker.forEachExpr(loop.body(), e -> inDouble[0] |= e.type() == ScalarType.F64);
        return !inDouble[0];
    }

    /** Marks the loop whose latch is {@code backEdge} with {@code hints} (nodes made by {@link #hint} and {@link #flag}). */
    static void mark(LLVMContextRef context, LLVMValueRef backEdge, LLVMMetadataRef... hints) {
        String kind = "llvm.loop";
        LLVMSetMetadata(backEdge, LLVMGetMDKindIDInContext(context, kind, kind.length()),
            LLVMMetadataAsValue(context, distinct(context, hints)));
    }

    /**
     * Marks the loop whose latch is {@code backEdge} to be left whole until the loop vectorizer has run
     * (llvm.loop.unroll.disable), and the vectorized loop, one or two iterations, to be fully unrolled then
     * (llvm.loop.vectorize.followup_vectorized).
     */
    static void vectorizeThenUnroll(LLVMContextRef context, LLVMValueRef backEdge) {
        String followup = "llvm.loop.vectorize.followup_vectorized";
        mark(context, backEdge, flag(context, "llvm.loop.unroll.disable"), LLVMMDNodeInContext2(context, new PointerPointer<>(2)
            .put(0, LLVMMDStringInContext2(context, followup, followup.length()))
            .put(1, distinct(context, flag(context, "llvm.loop.unroll.full"))), 2));
    }

    /** A hint with an integer value, such as llvm.loop.unroll.count. */
    static LLVMMetadataRef hint(LLVMContextRef context, String name, int value) {
        return LLVMMDNodeInContext2(context, new PointerPointer<>(2)
            .put(0, LLVMMDStringInContext2(context, name, name.length()))
            .put(1, LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(context), value, 0))), 2);
    }

    /** A hint without a value, such as llvm.loop.unroll.disable. */
    static LLVMMetadataRef flag(LLVMContextRef context, String name) {
        return LLVMMDNodeInContext2(context, new PointerPointer<>(1).put(0, LLVMMDStringInContext2(context, name, name.length())), 1);
    }

    /** A loop ID: a node whose first operand is itself, so that no two loops share it, followed by {@code hints}. */
    private static LLVMMetadataRef distinct(LLVMContextRef context, LLVMMetadataRef... hints) {
        LLVMMetadataRef self = LLVMTemporaryMDNode(context, new PointerPointer<>(0), 0);
        PointerPointer<?> operands = new PointerPointer<>(hints.length + 1).put(0, self);
        for (int i = 0; i < hints.length; i++) operands.put(i + 1, hints[i]);
        LLVMMetadataRef loopId = LLVMMDNodeInContext2(context, operands, hints.length + 1);
        LLVMMetadataReplaceAllUsesWith(self, loopId);
        return loopId;
    }
}
