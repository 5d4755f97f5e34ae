package dev.byodt.compiler.codegen;

import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * The barrier the threads of a model compiled for several meet at between kernels, emitted into the model's
 * module as {@code void byodt.barrier(ptr state, i64 parts)}. {@code state} is two zeroed i64 shared by the
 * threads: how many have arrived, and a generation that the last to arrive advances after resetting the count,
 * which releases the others (who read the generation before arriving). All accesses are sequentially consistent
 * atomics, so each kernel's stores are visible to every thread after the barrier. Waiting threads spin a while
 * (the other thread's share of a kernel usually ends within microseconds), then give up the core with
 * sched_yield between checks, since on a busy machine the thread they wait for may need it.
 */
final class ThreadBarrier {
    /** Checks of the generation before a waiting thread starts yielding its core between checks. */
    private static final long SPINS_BEFORE_YIELDING = 4096;

    private ThreadBarrier() {}

    /** Emits the barrier function into {@code module}; returns it (its type: {@link #type}). */
    static LLVMValueRef emit(LLVMContextRef context, LLVMModuleRef module) {
        LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
        LLVMValueRef function = LLVMAddFunction(module, "byodt.barrier", type(context));
        LLVMSetLinkage(function, LLVMInternalLinkage);
        LLVMTypeRef yieldType = LLVMFunctionType(i32, new PointerPointer<>(0), 0, 0);
        LLVMValueRef schedYield = LLVMAddFunction(module, "sched_yield", yieldType);
        LLVMValueRef state = LLVMGetParam(function, 0);
        LLVMValueRef parts = LLVMGetParam(function, 1);
        LLVMBuilderRef b = LLVMCreateBuilderInContext(context);
        try {
            LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(context, function, "entry");
            LLVMBasicBlockRef release = LLVMAppendBasicBlockInContext(context, function, "release");
            LLVMBasicBlockRef wait = LLVMAppendBasicBlockInContext(context, function, "wait");
            LLVMBasicBlockRef spin = LLVMAppendBasicBlockInContext(context, function, "spin");
            LLVMBasicBlockRef yield = LLVMAppendBasicBlockInContext(context, function, "yield");
            LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(context, function, "done");

            LLVMPositionBuilderAtEnd(b, entry);
            LLVMValueRef generationAt = LLVMBuildInBoundsGEP2(b, i64, state, new PointerPointer<>(1).put(0, LLVMConstInt(i64, 1, 0)), 1, "generation.at");
            LLVMValueRef generation = atomicLoad(b, i64, generationAt, "generation");
            LLVMValueRef arrived = LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, state, LLVMConstInt(i64, 1, 0),
                LLVMAtomicOrderingSequentiallyConsistent, 0);
            LLVMValueRef last = LLVMBuildICmp(b, LLVMIntEQ, arrived, LLVMBuildSub(b, parts, LLVMConstInt(i64, 1, 0), ""), "last");
            LLVMBuildCondBr(b, last, release, wait);

            LLVMPositionBuilderAtEnd(b, release);
            LLVMValueRef reset = LLVMBuildStore(b, LLVMConstInt(i64, 0, 0), state);
            LLVMSetOrdering(reset, LLVMAtomicOrderingSequentiallyConsistent);
            LLVMSetAlignment(reset, 8);
            LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, generationAt, LLVMConstInt(i64, 1, 0),
                LLVMAtomicOrderingSequentiallyConsistent, 0);
            LLVMBuildRetVoid(b);

            LLVMPositionBuilderAtEnd(b, wait);
            LLVMValueRef checks = LLVMBuildPhi(b, i64, "checks");
            LLVMValueRef now = atomicLoad(b, i64, generationAt, "now");
            LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, now, generation, "released"), done, spin);

            LLVMPositionBuilderAtEnd(b, spin);
            LLVMValueRef next = LLVMBuildAdd(b, checks, LLVMConstInt(i64, 1, 0), "checks.next");
            LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGT, checks, LLVMConstInt(i64, SPINS_BEFORE_YIELDING, 0), ""), yield, wait);

            LLVMPositionBuilderAtEnd(b, yield);
            LLVMBuildCall2(b, yieldType, schedYield, new PointerPointer<>(0), 0, "");
            LLVMBuildBr(b, wait);

            LLVMAddIncoming(checks, LLVMConstInt(i64, 0, 0), entry, 1);
            LLVMAddIncoming(checks, next, spin, 1);
            LLVMAddIncoming(checks, next, yield, 1);

            LLVMPositionBuilderAtEnd(b, done);
            LLVMBuildRetVoid(b);
        } finally {
            LLVMDisposeBuilder(b);
        }
        return function;
    }

    /** void (ptr, i64) */
    static LLVMTypeRef type(LLVMContextRef context) {
        PointerPointer<LLVMTypeRef> params = new PointerPointer<>(2);
        params.put(0, LLVMPointerTypeInContext(context, 0));
        params.put(1, LLVMInt64TypeInContext(context));
        return LLVMFunctionType(LLVMVoidTypeInContext(context), params, 2, 0);
    }

    private static LLVMValueRef atomicLoad(LLVMBuilderRef b, LLVMTypeRef type, LLVMValueRef pointer, String name) {
        LLVMValueRef load = LLVMBuildLoad2(b, type, pointer, name);
        LLVMSetOrdering(load, LLVMAtomicOrderingSequentiallyConsistent);
        LLVMSetAlignment(load, 8);
        return load;
    }
}
