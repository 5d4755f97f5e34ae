package dev.byodt.compiler.aot;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMTargetRef;

import static org.bytedeco.llvm.global.LLVM.*;

/** A module parsed from LLVM IR text written in a test, with a host target machine: a stand-in for the backend's output. */
public final class HandWrittenModule implements AutoCloseable {
    /** void byodt_model(const float *x, float *y, void *workspace): y[i] = x[i] + 1 for 4 floats. */
    static final String ADD_ONE = """
        define void @byodt_model(ptr noalias %x, ptr noalias %y, ptr %workspace) {
        entry:
          br label %loop
        loop:
          %i = phi i64 [ 0, %entry ], [ %next, %loop ]
          %src = getelementptr float, ptr %x, i64 %i
          %v = load float, ptr %src
          %r = fadd float %v, 1.0
          %dst = getelementptr float, ptr %y, i64 %i
          store float %r, ptr %dst
          %next = add i64 %i, 1
          %done = icmp eq i64 %next, 4
          br i1 %done, label %exit, label %loop
        exit:
          ret void
        }
        """;

    public final LLVMContextRef context;
    public final LLVMModuleRef module;
    public final LLVMTargetMachineRef machine;

    public HandWrittenModule(String irText) {
        LLVMInitializeNativeTarget();
        LLVMInitializeNativeAsmPrinter();
        context = LLVMContextCreate();
        LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(new BytePointer(irText), irText.length(),
            new BytePointer("hand-written.ll"));
        module = new LLVMModuleRef();
        BytePointer error = new BytePointer();
        if (LLVMParseIRInContext(context, buffer, module, error) != 0) {
            throw new IllegalArgumentException("bad test IR: " + error.getString());
        }
        BytePointer triple = LLVMGetDefaultTargetTriple();
        LLVMTargetRef target = new LLVMTargetRef();
        if (LLVMGetTargetFromTriple(triple, target, error) != 0) throw new IllegalStateException(error.getString());
        machine = LLVMCreateTargetMachine(target, triple, new BytePointer("x86-64"), new BytePointer(""),
            LLVMCodeGenLevelAggressive, LLVMRelocPIC, LLVMCodeModelDefault);
        LLVMSetTarget(module, triple);
        LLVMDisposeMessage(triple);
    }

    @Override
    public void close() {
        LLVMDisposeModule(module);
        LLVMDisposeTargetMachine(machine);
        LLVMContextDispose(context);
    }
}
