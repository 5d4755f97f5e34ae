package dev.byodt.compiler.target;

import dev.byodt.runtime.ByodtException;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMTargetRef;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * What code is generated for: an LLVM target triple, a CPU name and its feature string
 * ("+avx2,+fma,..."), as LLVM's TargetMachine takes them.
 */
public record Target(String name, String triple, String cpu, String features) {

    /** The machine this JVM runs on, with every feature its CPU has (the JIT's target). */
    public static Target host() {
        Llvm.initializeNative();
        return new Target("host", Llvm.take(LLVMGetDefaultTargetTriple()), Llvm.take(LLVMGetHostCPUName()),
            Llvm.take(LLVMGetHostCPUFeatures()));
    }

    /**
     * A new TargetMachine for this target: position-independent code (it must go into shared libraries
     * and the JIT alike), default code model, full optimisation. The caller disposes it.
     */
    public LLVMTargetMachineRef createTargetMachine() {
        Llvm.initializeNative();
        LLVMTargetRef target = new LLVMTargetRef();
        BytePointer error = new BytePointer();
        if (LLVMGetTargetFromTriple(new BytePointer(triple), target, error) != 0) {
            Llvm.take(error);
            Llvm.initializeAll();
            if (LLVMGetTargetFromTriple(new BytePointer(triple), target, error) != 0) {
                throw new ByodtException("target " + name + " (" + triple + ") is not supported by LLVM: " + Llvm.take(error));
            }
        }
        return LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelAggressive, LLVMRelocPIC,
            LLVMCodeModelDefault);
    }
}
