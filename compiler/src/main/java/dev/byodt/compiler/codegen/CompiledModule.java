package dev.byodt.compiler.codegen;

import dev.byodt.compiler.target.Llvm;
import dev.byodt.compiler.target.Target;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeContextRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * A model compiled to one LLVM module (optimized unless asked otherwise) with the C signature of its entry
 * function. It owns the module, its context and the target machine, which the JIT and the ahead-of-time
 * emitters use; close it when done (a JIT made from it stays valid).
 */
public final class CompiledModule implements AutoCloseable {
    private final LLVMOrcThreadSafeContextRef threadSafeContext;
    private final LLVMModuleRef module;
    private final LLVMTargetMachineRef targetMachine;
    private final Target target;
    private final ProgramSignature signature;
    private final boolean optimized;
    private boolean closed;

    public CompiledModule(LLVMOrcThreadSafeContextRef threadSafeContext, LLVMModuleRef module,
                          LLVMTargetMachineRef targetMachine, Target target, ProgramSignature signature, boolean optimized) {
        this.threadSafeContext = threadSafeContext;
        this.module = module;
        this.targetMachine = targetMachine;
        this.target = target;
        this.signature = signature;
        this.optimized = optimized;
    }

    public ProgramSignature signature() { return signature; }

    public Target target() { return target; }

    public boolean isOptimized() { return optimized; }

    public LLVMModuleRef module() { return live(module); }

    public LLVMContextRef context() { return LLVMGetModuleContext(live(module)); }

    /** Thread-safe wrapper of {@link #context()}, through which ORC takes modules of this context. */
    public LLVMOrcThreadSafeContextRef threadSafeContext() { return live(threadSafeContext); }

    public LLVMTargetMachineRef targetMachine() { return live(targetMachine); }

    /** The module as LLVM assembly text (.ll). */
    public String printIr() { return Llvm.take(LLVMPrintModuleToString(live(module))); }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        LLVMDisposeModule(module);
        LLVMDisposeTargetMachine(targetMachine);
        // Drops this reference to the context; a JIT still holding modules of it keeps it alive.
        LLVMOrcDisposeThreadSafeContext(threadSafeContext);
    }

    private <T> T live(T handle) {
        if (closed) throw new IllegalStateException("the compiled module was closed");
        return handle;
    }
}
