package dev.byodt.compiler.codegen;

import dev.byodt.compiler.aot.HandWrittenModule;
import dev.byodt.compiler.target.Llvm;
import dev.byodt.compiler.target.Target;
import org.bytedeco.llvm.LLVM.LLVMPassBuilderOptionsRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.bytedeco.llvm.global.LLVM.LLVMCreatePassBuilderOptions;
import static org.bytedeco.llvm.global.LLVM.LLVMDisposePassBuilderOptions;
import static org.bytedeco.llvm.global.LLVM.LLVMDisposeTargetMachine;
import static org.bytedeco.llvm.global.LLVM.LLVMPrintModuleToString;
import static org.bytedeco.llvm.global.LLVM.LLVMRunPasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VectorVariantsTest {
    /**
     * A library function f that adds 1, a "variant" of it that adds 2 (so the optimized code shows which one
     * ran), and a model's loop y[i] = f(x[i]) of n iterations, the call marked with the trip count as the code
     * generator marks it ("?": unknown), linked as byodt links them: library functions internal, always inline.
     */
    static String module(String variantType, String tripCount) {
        return """
            define internal i8 @lib_f(i8 %x) alwaysinline {
              %y = add i8 %x, 1
              ret i8 %y
            }
            define internal TYPE @lib_f_x64(TYPE %x) alwaysinline {
              %y = add TYPE %x, splat (i8 2)
              ret TYPE %y
            }
            define void @byodt_model(ptr noalias %x, ptr noalias %y, i64 %n) {
            entry:
              br label %loop
            loop:
              %i = phi i64 [ 0, %entry ], [ %next, %loop ]
              %src = getelementptr i8, ptr %x, i64 %i
              %v = load i8, ptr %src
              %r = call i8 @lib_f(i8 %v) #0
              %dst = getelementptr i8, ptr %y, i64 %i
              store i8 %r, ptr %dst
              %next = add i64 %i, 1
              %done = icmp eq i64 %next, %n
              br i1 %done, label %exit, label %loop
            exit:
              ret void
            }
            attributes #0 = { "byodt-loop-trip-count"="TRIPS" }
            """.replace("TYPE", variantType).replace("TRIPS", tripCount);
    }

    /** An x86-64 with AVX-512, where 64 bytes fill a vector register (the vectorizer stops at one's width). */
    private static final Target AVX512 = new Target("avx512", "x86_64-unknown-linux-gnu", "x86-64-v4", "+avx512f,+avx512bw");

    static String optimized(String variantType, String tripCount, boolean vectorVariants) {
        try (HandWrittenModule m = new HandWrittenModule(module(variantType, tripCount))) {
            LLVMTargetMachineRef machine = AVX512.createTargetMachine();
            try {
                VectorWidth.widen(m.module, AVX512);
                Optimizer.optimize(m.module, machine, vectorVariants, false);
                return Llvm.take(LLVMPrintModuleToString(m.module));
            } finally {
                LLVMDisposeTargetMachine(machine);
            }
        }
    }

    @Test
    void aLoopCallingAFunctionRunsItsVariantInlined() {
        String ir = optimized("<64 x i8>", "?", true);
        assertTrue(ir.matches("(?s).*add <64 x i8> [^\\n]*splat \\(i8 2\\).*"), ir);
        assertFalse(ir.contains("call"), "both functions inlined:\n" + ir);
        assertFalse(ir.contains("@lib_f"), "both functions gone once inlined:\n" + ir);
        assertFalse(ir.contains("byodt-loop-trip-count"), ir);
    }

    @Test
    void aLoopOfAtLeastTheVariantsLanesRunsIt() {
        assertTrue(optimized("<64 x i8>", "64", true).contains("splat (i8 2)"));
    }

    @Test
    void aShorterLoopInlinesTheScalarFunction() {
        assertScalarOnly(optimized("<64 x i8>", "63", true));
    }

    @Test
    void withoutVariantsTheScalarFunctionInlinesAndVectorizes() {
        assertScalarOnly(optimized("<64 x i8>", "?", false));
    }

    @Test
    void aFunctionOfAnotherTypeIsNoVariant() {
        assertScalarOnly(optimized("<32 x i8>", "?", true));
    }

    /** A module as the first run leaves it: one kernel calls a variant, the other does not. */
    private static final String AFTER_THE_FIRST_RUN = """
        define internal <64 x i8> @lib_f_x64(<64 x i8> %x) {
          %y = add <64 x i8> %x, splat (i8 2)
          ret <64 x i8> %y
        }
        define internal void @k0.Add.took_a_variant(ptr noalias %p) noinline {
          %v = load <64 x i8>, ptr %p
          %r = call <64 x i8> @lib_f_x64(<64 x i8> %v)
          store <64 x i8> %r, ptr %p
          ret void
        }
        define internal void @k1.Relu.took_none(ptr noalias %p) noinline {
          store i8 0, ptr %p
          ret void
        }
        define void @byodt_model(ptr %p) {
          call void @k0.Add.took_a_variant(ptr %p)
          call void @k1.Relu.took_none(ptr %p)
          ret void
        }
        """;

    @Test
    void theSecondRunPassesByTheKernelsThatTookNoVariant() {
        try (HandWrittenModule m = new HandWrittenModule(AFTER_THE_FIRST_RUN)) {
            List<String> finished = VectorVariants.settle(m.module, List.of("lib_f_x64"));
            assertEquals(List.of("k1.Relu.took_none"), finished);
            String ir = Llvm.take(LLVMPrintModuleToString(m.module));
            assertTrue(ir.matches("(?s).*define internal void @k1\\.Relu\\.took_none\\(ptr noalias %p\\) #([0-9]+).*attributes #\\1 = \\{[^}]*optnone.*"), ir);
            VectorVariants.release(m.module, finished);
            assertFalse(Llvm.take(LLVMPrintModuleToString(m.module)).contains("optnone"));
        }
    }

    /**
     * The second run may delete a kernel set aside: here one that nothing calls once the first run's inlining
     * left it behind (training steps have such kernels). Releasing the others must not touch it.
     */
    @Test
    void aKernelTheSecondRunDeletesIsNotReleased() {
        try (HandWrittenModule m = new HandWrittenModule(AFTER_THE_FIRST_RUN + """
                define internal void @k2.Tanh.uncalled(ptr noalias %p) noinline {
                  store i8 1, ptr %p
                  ret void
                }
                """)) {
            LLVMTargetMachineRef machine = AVX512.createTargetMachine();
            LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
            try {
                List<String> finished = VectorVariants.settle(m.module, List.of("lib_f_x64"));
                assertEquals(List.of("k1.Relu.took_none", "k2.Tanh.uncalled"), finished);
                Llvm.check(LLVMRunPasses(m.module, "default<O3>", machine, options), "optimizing the module");
                VectorVariants.release(m.module, finished);
                String ir = Llvm.take(LLVMPrintModuleToString(m.module));
                assertFalse(ir.contains("k2.Tanh.uncalled"), ir);
                assertFalse(ir.contains("optnone"), ir);
            } finally {
                LLVMDisposePassBuilderOptions(options);
                LLVMDisposeTargetMachine(machine);
            }
        }
    }

    private static void assertScalarOnly(String ir) {
        assertTrue(ir.matches("(?s).*add <[0-9]+ x i8> [^\\n]*splat \\(i8 1\\).*"), ir);
        assertFalse(ir.contains("splat (i8 2)"), ir);
        assertFalse(ir.contains("vector-function-abi-variant"), ir);
        assertFalse(ir.contains("noinline"), ir);
        assertFalse(ir.contains("byodt-loop-trip-count"), ir);
    }
}
