package dev.byodt.compiler.codegen;

import dev.byodt.compiler.target.Llvm;
import dev.byodt.compiler.target.Target;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeContextRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;

import java.util.List;

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
    private final List<String> fallbacks;
    private boolean closed;

    public CompiledModule(LLVMOrcThreadSafeContextRef threadSafeContext, LLVMModuleRef module,
                          LLVMTargetMachineRef targetMachine, Target target, ProgramSignature signature, boolean optimized) {
        this(threadSafeContext, module, targetMachine, target, signature, optimized, List.of());
    }

    /** @param fallbacks the operations computed in float32 for want of a lowering, per datatype (--fallback float32) */
    public CompiledModule(LLVMOrcThreadSafeContextRef threadSafeContext, LLVMModuleRef module,
                          LLVMTargetMachineRef targetMachine, Target target, ProgramSignature signature, boolean optimized,
                          List<String> fallbacks) {
        this.fallbacks = List.copyOf(fallbacks);
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

    /** "custom[lns]16: exp (used by Softmax 'sm')": what fell back to float32, per datatype; empty when nothing did. */
    public List<String> fallbacks() { return fallbacks; }

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
