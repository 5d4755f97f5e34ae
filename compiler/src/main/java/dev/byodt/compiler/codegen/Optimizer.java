package dev.byodt.compiler.codegen;

import dev.byodt.compiler.target.Llvm;
import dev.byodt.runtime.StageTimes;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMPassBuilderOptionsRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;

import java.util.List;

import static org.bytedeco.llvm.global.LLVM.*;

/** LLVM's O3 pipeline (new pass manager) with the target's cost model, so loops vectorize for its CPU. */
public final class Optimizer {
    private Optimizer() {}

    /**
     * Verifies the module first: a module that does not verify is a bug in byodt's code generation, and
     * optimizing it would fail in ways that hide the cause.
     */
    public static void verify(LLVMModuleRef module) {
        BytePointer message = new BytePointer();
        if (LLVMVerifyModule(module, LLVMReturnStatusAction, message) != 0) {
            throw new IllegalStateException("byodt generated an invalid LLVM module: " + Llvm.take(message));
        }
        Llvm.take(message);
    }

    /**
     * With {@code vectorVariants} and calls that vector variants can serve (see {@link VectorVariants}), twice:
     * first with those calls out of line, so that their loops vectorize with calls to the variants, then with
     * everything inlined, for the kernels that took a variant or kept a call. Without, the variants go unused (a scalar baseline's library).
     *
     * <p>Without {@code unroll} loops are neither unrolled nor interleaved (see {@link dev.byodt.compiler.Compiler}
     * for when).
     */
    public static void optimize(LLVMModuleRef module, LLVMTargetMachineRef targetMachine, boolean vectorVariants, boolean unroll) {
        LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
        try {
            LLVMPassBuilderOptionsSetLoopVectorization(options, 1);
            LLVMPassBuilderOptionsSetSLPVectorization(options, 1);
            LLVMPassBuilderOptionsSetLoopInterleaving(options, unroll ? 1 : 0);
            LLVMPassBuilderOptionsSetLoopUnrolling(options, unroll ? 1 : 0);
            List<String> variants = vectorVariants ? VectorVariants.offer(module) : List.of();
            VectorVariants.forgetTripCounts(module);
            StageTimes.time("optimizing the module (O3)", () -> Llvm.check(LLVMRunPasses(module, "default<O3>", targetMachine, options), "optimizing the module"));
            if (!variants.isEmpty()) {
                List<String> finished = VectorVariants.settle(module, variants);
                StageTimes.time("optimizing again the functions that took a vector variant (O3)",
                    () -> Llvm.check(LLVMRunPasses(module, "default<O3>", targetMachine, options), "optimizing the module"));
                VectorVariants.release(module, finished);
            }
        } finally {
            LLVMDisposePassBuilderOptions(options);
        }
    }
}
