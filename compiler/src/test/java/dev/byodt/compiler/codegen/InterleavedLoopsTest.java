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
 * A call-free loop of an emulated model is interleaved and unrolled a fixed number of times, never by
 * llvm.loop.unroll.enable, whose pragma thresholds unrolled a training step's float32 kernels beside a posit16
 * node until the step took 33 s to compile.
 */
class InterleavedLoopsTest {
    private static final String LOOP = """
        define void @k(ptr noalias %x, i64 %n) {
        entry:
          br label %loop
        loop:
          %i = phi i64 [ 0, %entry ], [ %next, %loop ]
          %p = getelementptr float, ptr %x, i64 %i
          store float 0.0, ptr %p
          %next = add i64 %i, 1
          %done = icmp eq i64 %next, %n
          br i1 %done, label %exit, label %loop
        exit:
          ret void
        }
        """;

    @Test
    void theLatchAsksForACountOfInterleavedAndUnrolledIterations() {
        try (HandWrittenModule m = new HandWrittenModule(LOOP)) {
            LLVMValueRef k = LLVMGetNamedFunction(m.module, "k");
            LLVMBasicBlockRef loop = LLVMGetNextBasicBlock(LLVMGetFirstBasicBlock(k));
            InterleavedLoops.mark(m.context, LLVMGetBasicBlockTerminator(loop));
            String ir = Llvm.take(LLVMPrintModuleToString(m.module));
            assertTrue(ir.matches("(?s).*!\"llvm.loop.interleave.count\", i32 4}.*"), ir);
            assertTrue(ir.matches("(?s).*!\"llvm.loop.unroll.count\", i32 4}.*"), ir);
            assertFalse(ir.contains("llvm.loop.unroll.enable"), ir);
        }
    }
}
