package dev.byodt.compiler.codegen;

import dev.byodt.compiler.target.Target;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * Lets the vectorizers use 512-bit vectors on targets with AVX-512. LLVM's x86 tuning prefers 256-bit
 * vectors on most AVX-512 CPUs (for the clock penalty of wide instructions on early parts), a choice for
 * general code; a model's kernels are long runs of arithmetic, and the float32 library's functions compute
 * in double, where a 256-bit vector holds only 4 lanes. On LeNet-5 the wider vectors make tanh about twice
 * as fast.
 */
public final class VectorWidth {
    private static final String PREFER = "prefer-vector-width";

    private VectorWidth() {}

    /** Marks every function defined in the module with "prefer-vector-width"="512" when the target has AVX-512F. */
    public static void widen(LLVMModuleRef module, Target target) {
        if (target.vectorBits() < 512) return;
        for (LLVMValueRef f = LLVMGetFirstFunction(module); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) {
            if (LLVMIsDeclaration(f) != 0) continue;
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                LLVMCreateStringAttribute(LLVMGetModuleContext(module), PREFER, PREFER.length(), "512", 3));
        }
    }
}
