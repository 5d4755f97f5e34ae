package dev.byodt.compiler.codegen;

import dev.byodt.compiler.aot.HandWrittenModule;
import dev.byodt.compiler.target.Llvm;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.junit.jupiter.api.Test;

import static org.bytedeco.llvm.global.LLVM.LLVMGetBasicBlockTerminator;
import static org.bytedeco.llvm.global.LLVM.LLVMGetFirstBasicBlock;
import static org.bytedeco.llvm.global.LLVM.LLVMGetNamedFunction;
import static org.bytedeco.llvm.global.LLVM.LLVMGetNextBasicBlock;
import static org.bytedeco.llvm.global.LLVM.LLVMPrintModuleToString;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A loop that spans whole vectors (a row of a register tile) is kept whole until the loop vectorizer has run and
 * fully unrolled once vectorized: O3 turns it into straight vector code, not a loop left rolled.
 */
class LoopHintsTest {
    /** acc[i] += x[i] * w for 32 floats, a row of a tile's multiply-adds. */
    private static final String ROW = """
        define void @k(ptr noalias %acc, ptr noalias %x, float %w) {
        entry:
          br label %loop
        loop:
          %i = phi i64 [ 0, %entry ], [ %next, %loop ]
          %pa = getelementptr float, ptr %acc, i64 %i
          %px = getelementptr float, ptr %x, i64 %i
          %a = load float, ptr %pa
          %v = load float, ptr %px
          %p = fmul float %v, %w
          %s = fadd float %a, %p
          store float %s, ptr %pa
          %next = add nsw i64 %i, 1
          %inside = icmp slt i64 %next, 32
          br i1 %inside, label %loop, label %exit
        exit:
          ret void
        }
        """;

    @Test
    void theLatchDefersUnrollingToTheVectorizedLoop() {
        try (HandWrittenModule m = new HandWrittenModule(ROW)) {
            LoopHints.vectorizeThenUnroll(m.context, latch(m));
            String ir = Llvm.take(LLVMPrintModuleToString(m.module));
            assertTrue(ir.matches("(?s).*!\\{!\"llvm.loop.unroll.disable\"}.*"), ir);
            assertTrue(ir.matches("(?s).*!\\{!\"llvm.loop.vectorize.followup_vectorized\", ![0-9]+}.*"), ir);
            assertTrue(ir.matches("(?s).*!\\{!\"llvm.loop.unroll.full\"}.*"), ir);
        }
    }

    @Test
    void optimizedTheRowIsStraightVectorCode() {
        try (HandWrittenModule m = new HandWrittenModule(ROW)) {
            LoopHints.vectorizeThenUnroll(m.context, latch(m));
            Optimizer.optimize(m.module, m.machine, false, true);
            String ir = Llvm.take(LLVMPrintModuleToString(m.module));
            assertTrue(ir.contains("fmul <4 x float>"), ir);
            assertFalse(ir.contains("phi"), ir);
            assertFalse(ir.contains("fmul float"), ir);
        }
    }

    private static LLVMValueRef latch(HandWrittenModule m) {
        LLVMValueRef k = LLVMGetNamedFunction(m.module, "k");
        LLVMBasicBlockRef loop = LLVMGetNextBasicBlock(LLVMGetFirstBasicBlock(k));
        return LLVMGetBasicBlockTerminator(loop);
    }
}
