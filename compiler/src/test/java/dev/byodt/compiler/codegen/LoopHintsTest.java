package dev.byodt.compiler.codegen;

import dev.byodt.compiler.aot.HandWrittenModule;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.compiler.target.Llvm;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.junit.jupiter.api.Test;

import java.util.List;

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

    /** Rows of float32 sums are vectorized first; rows of double sums (the exact sums' tiles) are left to O3's default. */
    @Test
    void rowsOfDoublesAreNotMarked() {
        assertTrue(LoopHints.vectorizesFirst(row(ScalarType.F32)));
        assertFalse(LoopHints.vectorizesFirst(row(ScalarType.F64)));
    }

    /** A kernel's row loop, acc[c] = acc[c] + x[c], over 16 elements of {@code type}. */
    private static Stmt.For row(ScalarType type) {
        Buffer acc = new Buffer("acc", type, new long[] {16}), x = new Buffer("x", type, new long[] {16});
        KernelBuilder kb = new KernelBuilder("k", "Conv", List.of(x), List.of(acc));
        kb.vectorLoop(16, c -> kb.store(acc, c, Exprs.add(kb.load(acc, c), kb.load(x, c))));
        return (Stmt.For) kb.build().body().getFirst();
    }

    private static LLVMValueRef latch(HandWrittenModule m) {
        LLVMValueRef k = LLVMGetNamedFunction(m.module, "k");
        LLVMBasicBlockRef loop = LLVMGetNextBasicBlock(LLVMGetFirstBasicBlock(k));
        return LLVMGetBasicBlockTerminator(loop);
    }
}
