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
 * How the threads of a model compiled for several share the work of its split kernels, without waiting for each
 * other: a thread that the machine does not schedule holds nobody up, since the others do its share.
 *
 * <p>Part 0 runs every kernel in order. At each run of a split loop (once per kernel, or once per iteration of
 * the loops around it) it opens the run: it resets the count of finished chunks, then publishes the run's tag in
 * the high bits of the claim word, whose low {@link #CLAIM_BITS} bits count the chunks claimed (from the front
 * by part 0, from the back by the others: {@link #claim}). A tag is the
 * kernel's position among the split kernels, plus one, times {@link #RUNS_PER_KERNEL}, plus the run's number,
 * so tags grow through a call. Every thread that reaches a run while its tag is published claims chunks of it,
 * one at a time, by compare-and-swap on the claim word, and counts each chunk it finishes; it stops when none is
 * left or another tag is published (the run is over). The other parts skip the kernels part 0 runs alone, wait
 * for each split kernel's first tag before they enter it (its inputs are written then), and for each run's tag.
 * After its last chunk part 0 waits until every claimed chunk is finished, which is at most the one chunk each
 * other thread is in, then goes on. The state is {@link #STATE_BYTES} bytes the caller zeroes before each call:
 * the claim word (first) and, a cache line further, the finished count, so that a thread counting a chunk does
 * not take from the other the line it claims on. All accesses are sequentially consistent atomics, so what part 0
 * stored before it published is visible to a thread that sees the tag, and what a thread stored in its chunks is
 * visible to part 0 once it sees them counted. Waiting threads spin a while, then give up the core with sched_yield between checks,
 * since on a busy machine the thread they wait for may need it.
 */
final class WorkSharing {
    /** The bytes of a cache line on every target byodt runs threads on (x86-64 and AArch64 hosts). */
    private static final long CACHE_LINE = 64;
    /** The size of the shared state: two cache lines. */
    static final long STATE_BYTES = 2 * CACHE_LINE;
    /** The low bits of the claim word that count the chunks claimed, from the front and from the back; the tag is above them. */
    static final int CLAIM_BITS = 24;
    /** The bits of the claim word that count one end's chunks. */
    static final int END_BITS = CLAIM_BITS / 2;
    /** The most chunks one run of a split loop may be cut into: each end's count must not carry into the other's. */
    static final long MOST_CHUNKS = (1L << END_BITS) - 1;
    /** The most runs a split loop may have in one call of its kernel (see the class comment). */
    static final long RUNS_PER_KERNEL = 1L << 20;
    /** Checks of a shared word before a waiting thread starts yielding its core between checks. */
    private static final long SPINS_BEFORE_YIELDING = 4096;

    private final LLVMContextRef context;
    private final LLVMTypeRef i64;
    /** The functions' type: void (ptr, i64) */
    private final LLVMTypeRef type;
    /** void byodt.open(ptr state, i64 tag) */
    final LLVMValueRef open;
    /** void byodt.await(ptr state, i64 tag): returns once the tag {@code tag} or a later one is published. */
    final LLVMValueRef await;
    /** void byodt.await_chunks(ptr state, i64 chunks): returns once {@code chunks} chunks are finished. */
    final LLVMValueRef awaitChunks;
    private final LLVMValueRef schedYield;
    private final LLVMTypeRef yieldType;

    /** Emits the functions into {@code module}. */
    WorkSharing(LLVMContextRef context, LLVMModuleRef module) {
        this.context = context;
        this.i64 = LLVMInt64TypeInContext(context);
        this.type = LLVMFunctionType(LLVMVoidTypeInContext(context),
            new PointerPointer<LLVMTypeRef>(2).put(0, LLVMPointerTypeInContext(context, 0)).put(1, i64), 2, 0);
        this.yieldType = LLVMFunctionType(LLVMInt32TypeInContext(context), new PointerPointer<>(0), 0, 0);
        this.schedYield = LLVMAddFunction(module, "sched_yield", yieldType);
        this.open = function(module, "byodt.open");
        this.await = function(module, "byodt.await");
        this.awaitChunks = function(module, "byodt.await_chunks");
        LLVMBuilderRef b = LLVMCreateBuilderInContext(context);
        try {
            emitOpen(b);
            emitWait(b, await, true);
            emitWait(b, awaitChunks, false);
        } finally {
            LLVMDisposeBuilder(b);
        }
    }

    /**
     * At the builder's position in {@code function}: calls {@code partZero} in part 0 and {@code others} in every
     * other part (either may be null: no call), each with (state, argument), and leaves the builder where the parts
     * go on together.
     */
    void callByPart(LLVMBuilderRef b, LLVMValueRef function, LLVMValueRef part, LLVMValueRef partZero, LLVMValueRef others,
                    LLVMValueRef state, LLVMValueRef argument, String name) {
        LLVMBasicBlockRef zeroBlock = partZero == null ? null : LLVMAppendBasicBlockInContext(context, function, name + ".part0");
        LLVMBasicBlockRef otherBlock = others == null ? null : LLVMAppendBasicBlockInContext(context, function, name + ".others");
        LLVMBasicBlockRef joined = LLVMAppendBasicBlockInContext(context, function, name + ".joined");
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, part, LLVMConstInt(i64, 0, 0), ""),
            zeroBlock == null ? joined : zeroBlock, otherBlock == null ? joined : otherBlock);
        PointerPointer<LLVMValueRef> args = new PointerPointer<LLVMValueRef>(2).put(0, state).put(1, argument);
        if (zeroBlock != null) call(b, zeroBlock, partZero, args, joined);
        if (otherBlock != null) call(b, otherBlock, others, args, joined);
        LLVMPositionBuilderAtEnd(b, joined);
    }

    private void call(LLVMBuilderRef b, LLVMBasicBlockRef block, LLVMValueRef callee, PointerPointer<LLVMValueRef> args,
                      LLVMBasicBlockRef then) {
        LLVMPositionBuilderAtEnd(b, block);
        LLVMBuildCall2(b, type, callee, args, 2, "");
        LLVMBuildBr(b, then);
    }

    /**
     * In the builder's block, which nothing else is emitted into: claims the next chunk of the split kernel
     * tagged {@code tag} for part {@code part}, or branches to {@code none} when the kernel has no chunk left or is
     * over. Leaves the builder where a chunk was claimed and returns its number. Part 0 claims from the front,
     * the other parts from the back (the claim word counts each end's chunks in {@link #END_BITS} bits), so that
     * on two threads each takes the same end of every run: the outputs a thread computed are the inputs it reads
     * in the next kernel, from its own cache, where claims in turn moved half of them from the other core's.
     * Emitted inline: a claim is a load and a compare-and-swap, begun again when another thread claimed in between.
     */
    LLVMValueRef claim(LLVMBuilderRef b, LLVMValueRef function, LLVMValueRef state, LLVMValueRef tag, LLVMValueRef part,
                       LLVMValueRef chunks, LLVMBasicBlockRef none, String name) {
        LLVMBasicBlockRef retry = LLVMGetInsertBlock(b);
        LLVMBasicBlockRef take = LLVMAppendBasicBlockInContext(context, function, name + ".take");
        LLVMBasicBlockRef taken = LLVMAppendBasicBlockInContext(context, function, name + ".taken");
        LLVMValueRef endMask = LLVMConstInt(i64, (1L << END_BITS) - 1, 0);
        LLVMValueRef word = atomicLoad(b, state, name + ".word");
        LLVMValueRef front = LLVMBuildAnd(b, word, endMask, name + ".front");
        LLVMValueRef back = LLVMBuildAnd(b, LLVMBuildLShr(b, word, LLVMConstInt(i64, END_BITS, 0), ""), endMask, name + ".back");
        LLVMValueRef current = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildLShr(b, word, LLVMConstInt(i64, CLAIM_BITS, 0), ""), tag, "");
        LLVMValueRef left = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildAdd(b, front, back, ""), chunks, "");
        LLVMBuildCondBr(b, LLVMBuildAnd(b, current, left, ""), take, none);
        LLVMPositionBuilderAtEnd(b, take);
        LLVMValueRef fromFront = LLVMBuildICmp(b, LLVMIntEQ, part, LLVMConstInt(i64, 0, 0), "");
        LLVMValueRef count = LLVMBuildSelect(b, fromFront, LLVMConstInt(i64, 1, 0), LLVMConstInt(i64, 1L << END_BITS, 0), "");
        LLVMValueRef fromBack = LLVMBuildSub(b, LLVMBuildSub(b, chunks, LLVMConstInt(i64, 1, 0), ""), back, "");
        LLVMValueRef chunk = LLVMBuildSelect(b, fromFront, front, fromBack, name + ".chunk");
        LLVMValueRef swap = LLVMBuildAtomicCmpXchg(b, state, word, LLVMBuildAdd(b, word, count, ""),
            LLVMAtomicOrderingSequentiallyConsistent, LLVMAtomicOrderingSequentiallyConsistent, 0);
        LLVMBuildCondBr(b, LLVMBuildExtractValue(b, swap, 1, ""), taken, retry);
        LLVMPositionBuilderAtEnd(b, taken);
        return chunk;
    }

    /** At the builder's position: counts one finished chunk. */
    void finished(LLVMBuilderRef b, LLVMValueRef state) {
        LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, finishedCount(b, state), LLVMConstInt(i64, 1, 0),
            LLVMAtomicOrderingSequentiallyConsistent, 0);
    }

    private void emitOpen(LLVMBuilderRef b) {
        LLVMValueRef state = LLVMGetParam(open, 0);
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(context, open, "entry"));
        atomicStore(b, LLVMConstInt(i64, 0, 0), finishedCount(b, state));
        atomicStore(b, LLVMBuildShl(b, LLVMGetParam(open, 1), LLVMConstInt(i64, CLAIM_BITS, 0), ""), state);
        LLVMBuildRetVoid(b);
    }

    /**
     * Emits {@code function(state, wanted)}: waits until the claim word's tag reaches {@code wanted}
     * ({@code forTag}), or the finished count reaches it.
     */
    private void emitWait(LLVMBuilderRef b, LLVMValueRef function, boolean forTag) {
        LLVMValueRef state = LLVMGetParam(function, 0);
        LLVMValueRef wanted = LLVMGetParam(function, 1);
        LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(context, function, "entry");
        LLVMBasicBlockRef check = LLVMAppendBasicBlockInContext(context, function, "check");
        LLVMBasicBlockRef spin = LLVMAppendBasicBlockInContext(context, function, "spin");
        LLVMBasicBlockRef yield = LLVMAppendBasicBlockInContext(context, function, "yield");
        LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(context, function, "done");

        LLVMPositionBuilderAtEnd(b, entry);
        LLVMValueRef watched = forTag ? state : finishedCount(b, state);
        LLVMBuildBr(b, check);

        LLVMPositionBuilderAtEnd(b, check);
        LLVMValueRef checks = LLVMBuildPhi(b, i64, "checks");
        LLVMValueRef now = atomicLoad(b, watched, "now");
        LLVMValueRef reached = forTag ? LLVMBuildLShr(b, now, LLVMConstInt(i64, CLAIM_BITS, 0), "tag") : now;
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGE, reached, wanted, "reached"), done, spin);

        LLVMPositionBuilderAtEnd(b, spin);
        LLVMValueRef next = LLVMBuildAdd(b, checks, LLVMConstInt(i64, 1, 0), "checks.next");
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGT, checks, LLVMConstInt(i64, SPINS_BEFORE_YIELDING, 0), ""), yield, check);

        LLVMPositionBuilderAtEnd(b, yield);
        LLVMBuildCall2(b, yieldType, schedYield, new PointerPointer<>(0), 0, "");
        LLVMBuildBr(b, check);

        LLVMAddIncoming(checks, LLVMConstInt(i64, 0, 0), entry, 1);
        LLVMAddIncoming(checks, next, spin, 1);
        LLVMAddIncoming(checks, next, yield, 1);

        LLVMPositionBuilderAtEnd(b, done);
        LLVMBuildRetVoid(b);
    }

    private LLVMValueRef function(LLVMModuleRef module, String name) {
        LLVMValueRef f = LLVMAddFunction(module, name, type);
        LLVMSetLinkage(f, LLVMInternalLinkage);
        return f;
    }

    private LLVMValueRef finishedCount(LLVMBuilderRef b, LLVMValueRef state) {
        return LLVMBuildInBoundsGEP2(b, i64, state, new PointerPointer<>(1).put(0, LLVMConstInt(i64, CACHE_LINE / Long.BYTES, 0)), 1,
            "finished.at");
    }

    private LLVMValueRef atomicLoad(LLVMBuilderRef b, LLVMValueRef pointer, String name) {
        LLVMValueRef load = LLVMBuildLoad2(b, i64, pointer, name);
        LLVMSetOrdering(load, LLVMAtomicOrderingSequentiallyConsistent);
        LLVMSetAlignment(load, 8);
        return load;
    }

    private void atomicStore(LLVMBuilderRef b, LLVMValueRef value, LLVMValueRef pointer) {
        LLVMValueRef store = LLVMBuildStore(b, value, pointer);
        LLVMSetOrdering(store, LLVMAtomicOrderingSequentiallyConsistent);
        LLVMSetAlignment(store, 8);
    }
}
