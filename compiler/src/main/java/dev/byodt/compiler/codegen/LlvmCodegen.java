package dev.byodt.compiler.codegen;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.compiler.lower.MachineTypes;
import dev.byodt.compiler.lower.MemoryPlan;
import dev.byodt.compiler.lower.Program;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * Emits a program as one LLVM module:
 * <pre>
 * define internal void @k0.Conv.conv1(ptr noalias %x, ptr noalias %w, ptr noalias %y) { loops }
 * ...
 * define void @ENTRY(ptr noalias %image, ptr noalias %logits, ptr noalias %workspace) {
 *   call void @k0.Conv.conv1(ptr %image, ptr @weight.w, ptr (workspace + offset)) ...
 * }
 * </pre>
 * Each kernel is a function of its buffers, each passed once and marked noalias, which is true by
 * construction (the memory plan never overlaps a kernel's buffers) and is what lets LLVM vectorize. Kernels
 * of the same {@link KernelStructure} (a transformer's layers) share one function.
 * Weights are private constants of raw bytes, 64-byte aligned. The program must contain machine types
 * only (after datatype lowering); calls name functions the caller links into the module.
 *
 * <p>A module for several threads has the entry function
 * {@code ENTRY(inputs..., outputs..., ptr %workspace, ptr %thread.workspace, i64 %part, ptr %sharing)},
 * which every thread calls at once, each with its own part (0 to the threads compiled for, less one) and its own
 * workspace for scratch buffers (part 0 passes the shared one). Part 0 runs every kernel; a kernel with a loop to
 * split ({@link SplitLoops}) and the work to pay for it ({@link SplitCost}) takes the shared state, its first tag and
 * %part after its buffers, and every other part joins it there, each thread claiming chunks of that loop's
 * iterations until none is left ({@link WorkSharing} says how, and why no thread waits for another to arrive).
 */
public final class LlvmCodegen {

    private final LLVMContextRef context;
    private final LLVMModuleRef module;
    private final LLVMBuilderRef builder;
    private final LLVMTypeRef voidType;
    private final LLVMTypeRef ptrType;
    private final LLVMTypeRef i64;

    // The kernel function being emitted: where its buffers, loop variables and locals are.
    private LLVMValueRef function;
    private final Map<Buffer, LLVMValueRef> bufferPointers = new HashMap<>();
    private final Map<LoopVar, LLVMValueRef> loopValues = new HashMap<>();
    private final Deque<Stmt.For> enclosingLoops = new ArrayDeque<>();
    private final Map<Local, LLVMValueRef> localSlots = new HashMap<>();
    private final Map<ScalarType, LLVMValueRef> accumulatorSlots = new HashMap<>();
    private final boolean interleavesPlainLoops;
    private final boolean threaded;
    private final int threads;
    private final long leastSplitWork;
    private final MultiplyAdd multiplyAdd;
    private final WorkSharing sharing;
    // In a kernel function of a module for several threads: the loop it splits, how many chunks each run of it is
    // cut into, the state its chunks are claimed in, its tag there and this thread's part.
    private LoopVar splitVar;
    private long splitChunks;
    private LLVMValueRef sharingState;
    private LLVMValueRef tag;
    private LLVMValueRef part;

    private LlvmCodegen(LLVMContextRef context, String moduleName, boolean interleavesPlainLoops, int threads,
                        long leastSplitWork, MultiplyAdd multiplyAdd) {
        this.context = context;
        this.interleavesPlainLoops = interleavesPlainLoops;
        this.threaded = threads > 1;
        this.threads = threads;
        this.leastSplitWork = leastSplitWork;
        this.multiplyAdd = multiplyAdd;
        this.module = LLVMModuleCreateWithNameInContext(moduleName, context);
        this.builder = LLVMCreateBuilderInContext(context);
        this.voidType = LLVMVoidTypeInContext(context);
        this.ptrType = LLVMPointerTypeInContext(context, 0);
        this.i64 = LLVMInt64TypeInContext(context);
        this.sharing = threaded ? new WorkSharing(context, module) : null;
    }

    /**
     * A new module in {@code context} whose external function {@code entrySymbol} runs the program; with
     * {@code interleavesPlainLoops}, its innermost loops without library calls are marked to be interleaved
     * ({@link InterleavedLoops}), for an optimizer that interleaves no other loop. With {@code threads} above 1
     * the entry function is the one for several threads (see above), and they divide the runs of split loops with
     * at least {@code leastSplitWork} operations ({@link SplitCost}). Each multiply-add of machine floats rounds as
     * {@code multiplyAdd} says.
     */
    public static LLVMModuleRef generate(Program program, MemoryPlan plan, String entrySymbol, LLVMContextRef context,
                                         boolean interleavesPlainLoops, int threads, long leastSplitWork, MultiplyAdd multiplyAdd) {
        LlvmCodegen codegen = new LlvmCodegen(context, program.name() == null || program.name().isEmpty() ? "model" : program.name(),
            interleavesPlainLoops, threads, leastSplitWork, multiplyAdd);
        try {
            codegen.emitProgram(program, plan, entrySymbol);
            return codegen.module;
        } finally {
            LLVMDisposeBuilder(codegen.builder);
        }
    }

    // ---- the entry function

    private void emitProgram(Program program, MemoryPlan plan, String entrySymbol) {
        Map<Buffer, LLVMValueRef> weights = new HashMap<>();
        program.constants().forEach((buffer, tensor) -> weights.put(buffer, weight(buffer, tensor)));

        List<LLVMValueRef> kernelFunctions = new ArrayList<>();
        List<List<Buffer>> kernelParams = new ArrayList<>();
        List<Boolean> kernelSplits = new ArrayList<>();
        Map<String, LLVMValueRef> emitted = new HashMap<>();
        Map<String, Integer> users = new HashMap<>();
        for (int k = 0; k < program.kernels().size(); k++) {
            Kernel kernel = program.kernels().get(k);
            List<Buffer> params = parameters(kernel);
            int index = k;
            // Kernels of one structure split the same loop into as many chunks, or none (SplitLoops and SplitCost
            // read nothing else).
            String structure = KernelStructure.of(kernel, params);
            long chunks = threaded ? SplitCost.chunks(kernel, threads, leastSplitWork) : 0;
            LoopVar split = chunks == 0 ? null : SplitLoops.of(kernel).orElseThrow();
            kernelFunctions.add(emitted.computeIfAbsent(structure, s -> emitKernel(kernel, index, params, split, chunks)));
            kernelParams.add(params);
            kernelSplits.add(chunks > 0);
            users.merge(structure, 1, Integer::sum);
        }
        // A function that several nodes share is named after the first, with how many others run it:
        // "k3.Tanh.layer0/act (+7 identical)" (crash reports read it).
        emitted.forEach((structure, function) -> {
            int others = users.get(structure) - 1;
            if (others > 0) name(function, LLVMGetValueName(function).getString() + " (+" + others + " identical)");
        });

        List<Buffer> entryParams = new ArrayList<>(program.inputs());
        entryParams.addAll(program.outputs());
        int paramCount = entryParams.size() + 1;
        LLVMValueRef entry = LLVMAddFunction(module, entrySymbol, threaded
            ? functionType(voidType, paramCount + 1, 1, 1) : functionType(voidType, paramCount));
        addFunctionAttribute(entry, "nounwind");
        Map<Buffer, LLVMValueRef> callerMemory = new HashMap<>();
        for (int i = 0; i < entryParams.size(); i++) {
            LLVMValueRef param = LLVMGetParam(entry, i);
            name(param, entryParams.get(i).name());
            addParamAttribute(entry, i, "noalias");
            callerMemory.put(entryParams.get(i), param);
        }
        LLVMValueRef workspace = LLVMGetParam(entry, paramCount - 1);
        name(workspace, "workspace");
        LLVMValueRef threadWorkspace = workspace;
        LLVMValueRef entryPart = null, entrySharing = null;
        if (threaded) {
            threadWorkspace = LLVMGetParam(entry, paramCount);
            entryPart = LLVMGetParam(entry, paramCount + 1);
            entrySharing = LLVMGetParam(entry, paramCount + 2);
            name(threadWorkspace, "thread.workspace");
            name(entryPart, "part");
            name(entrySharing, "sharing");
        } else {
            addParamAttribute(entry, paramCount - 1, "noalias");
        }

        LLVMPositionBuilderAtEnd(builder, LLVMAppendBasicBlockInContext(context, entry, "entry"));
        long splitKernels = 0;
        for (int k = 0; k < kernelFunctions.size(); k++) {
            List<Buffer> params = kernelParams.get(k);
            Set<Buffer> scratch = new HashSet<>(program.kernels().get(k).scratch());
            boolean splits = kernelSplits.get(k);
            int argCount = params.size() + (splits ? 3 : 0);
            PointerPointer<LLVMValueRef> args = new PointerPointer<>(argCount);
            for (int i = 0; i < params.size(); i++) {
                Buffer b = params.get(i);
                LLVMValueRef pointer = callerMemory.containsKey(b) ? callerMemory.get(b)
                    : weights.containsKey(b) ? weights.get(b)
                    : gep(LLVMInt8TypeInContext(context), scratch.contains(b) ? threadWorkspace : workspace,
                        LLVMConstInt(i64, plan.offsetOf(b), 0), b.name());
                args.put(i, pointer);
            }
            if (splits) {
                LLVMValueRef kernelTag = LLVMConstInt(i64, ++splitKernels * WorkSharing.RUNS_PER_KERNEL, 0);
                // Every part but 0 waits until part 0 has opened the kernel's first run (or a later one).
                sharing.callByPart(builder, entry, entryPart, null, sharing.await, entrySharing, kernelTag, "k" + k);
                args.put(params.size(), entrySharing);
                args.put(params.size() + 1, kernelTag);
                args.put(params.size() + 2, entryPart);
                LLVMBuildCall2(builder, splitKernelType(params.size()), kernelFunctions.get(k), args, argCount, "");
            } else if (threaded) {
                LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(context, entry, "part0.k" + k);
                LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(context, entry, "after.k" + k);
                LLVMBuildCondBr(builder, LLVMBuildICmp(builder, LLVMIntEQ, entryPart, LLVMConstInt(i64, 0, 0), ""), run, after);
                LLVMPositionBuilderAtEnd(builder, run);
                LLVMBuildCall2(builder, functionType(voidType, params.size()), kernelFunctions.get(k), args, argCount, "");
                LLVMBuildBr(builder, after);
                LLVMPositionBuilderAtEnd(builder, after);
            } else {
                LLVMBuildCall2(builder, functionType(voidType, params.size()), kernelFunctions.get(k), args, argCount, "");
            }
        }
        LLVMBuildRetVoid(builder);
    }

    /** @weight.NAME = private unnamed_addr constant [N x i8] c"...", align 64 */
    private LLVMValueRef weight(Buffer buffer, MemorySegment contents) {
        long bytes = contents.byteSize();
        BytePointer data = new BytePointer(contents.asByteBuffer());
        LLVMValueRef init = LLVMConstStringInContext2(context, data, bytes, 1);
        LLVMValueRef global = LLVMAddGlobal(module, LLVMTypeOf(init), "weight." + buffer.name());
        LLVMSetInitializer(global, init);
        LLVMSetGlobalConstant(global, 1);
        LLVMSetLinkage(global, LLVMPrivateLinkage);
        LLVMSetUnnamedAddr(global, 1);
        LLVMSetAlignment(global, MemoryPlan.ALIGNMENT);
        return global;
    }

    /** The distinct buffers a kernel touches: those it loads (in input order), then its outputs and scratch buffers. */
    private static List<Buffer> parameters(Kernel kernel) {
        Set<Buffer> loaded = kernel.loadedBuffers();
        Set<Buffer> params = new LinkedHashSet<>();
        for (Buffer b : kernel.inputs()) {
            if (b != null && loaded.contains(b)) params.add(b);
        }
        params.addAll(kernel.outputs());
        params.addAll(kernel.scratch());
        params.addAll(loaded);
        return new ArrayList<>(params);
    }

    // ---- kernel functions

    /**
     * The kernel's function; with {@code split}, the loop whose runs it cuts into {@code chunks} chunks and claims
     * them (extra parameters: see above).
     */
    private LLVMValueRef emitKernel(Kernel kernel, int index, List<Buffer> params, LoopVar split, long chunks) {
        String name = "k" + index + "." + kernel.opType() + "." + kernel.name();
        function = LLVMAddFunction(module, name, split == null ? functionType(voidType, params.size())
            : splitKernelType(params.size()));
        LLVMSetLinkage(function, LLVMInternalLinkage);
        addFunctionAttribute(function, "nounwind");
        // Each kernel stays a function of its own: its loop nest is then optimized against its noalias
        // parameters and its constant trip counts alone. Inlined into the entry function, LLVM's unroller and
        // SLP vectorizer took the kernels' loops apart into shuffles (LeNet-5 ran 1.6 times slower).
        addFunctionAttribute(function, "noinline");

        bufferPointers.clear();
        loopValues.clear();
        localSlots.clear();
        accumulatorSlots.clear();
        for (int i = 0; i < params.size(); i++) {
            LLVMValueRef param = LLVMGetParam(function, i);
            name(param, params.get(i).name());
            addParamAttribute(function, i, "noalias");
            bufferPointers.put(params.get(i), param);
        }
        splitVar = split;
        splitChunks = chunks;
        if (split != null) {
            sharingState = LLVMGetParam(function, params.size());
            tag = LLVMGetParam(function, params.size() + 1);
            part = LLVMGetParam(function, params.size() + 2);
            name(sharingState, "sharing");
            name(tag, "tag");
            name(part, "part");
        }
        LLVMPositionBuilderAtEnd(builder, LLVMAppendBasicBlockInContext(context, function, "entry"));
        declareLocals(kernel.body());
        emit(kernel.body());
        LLVMBuildRetVoid(builder);
        return function;
    }

    /** Every local gets a stack slot in the entry block, which mem2reg turns into SSA values. */
    private void declareLocals(List<Stmt> body) {
        for (Stmt s : body) {
            switch (s) {
                case Stmt.Assign a -> localSlots.computeIfAbsent(a.local(),
                    l -> LLVMBuildAlloca(builder, type(l.type()), l.name()));
                case Stmt.For f -> declareLocals(f.body());
                case Stmt.If i -> {
                    declareLocals(i.then());
                    declareLocals(i.otherwise());
                }
                case Stmt.Store st -> { }
                case Stmt.Prefetch p -> { }
            }
        }
    }

    private void emit(List<Stmt> body) {
        for (Stmt s : body) emit(s);
    }

    private void emit(Stmt stmt) {
        switch (stmt) {
            case Stmt.For f -> emitLoop(f);
            case Stmt.Store s -> {
                LLVMValueRef store = LLVMBuildStore(builder, expr(s.value()), element(s.buffer(), s.index()));
                LLVMSetAlignment(store, MachineTypes.byteSize(s.buffer().elementType()));
            }
            case Stmt.Assign a -> LLVMBuildStore(builder, expr(a.value()), localSlots.get(a.local()));
            case Stmt.If i -> emitIf(i);
            // A read (0), kept in every level of cache (3), of data (1).
            case Stmt.Prefetch p -> call("llvm.prefetch.p0", voidType, List.of(element(p.buffer(), p.index()),
                LLVMConstInt(LLVMInt32TypeInContext(context), 0, 0), LLVMConstInt(LLVMInt32TypeInContext(context), 3, 0),
                LLVMConstInt(LLVMInt32TypeInContext(context), 1, 0)));
        }
    }

    /**
     * <pre>
     * header: %i = phi i64 [0, %before], [%i.next, %latch]; br (%i < extent), %body, %exit
     * body:   ...; %i.next = add nsw i64 %i, 1; br %header
     * </pre>
     * The loop a kernel splits is cut into chunks that the threads claim in turn (see {@link #emitChunks}).
     */
    private void emitLoop(Stmt.For loop) {
        String name = loop.var().name();
        LLVMValueRef extent = expr(loop.extent());
        LLVMValueRef start = LLVMConstInt(i64, 0, 0);
        LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(context, function, name + ".exit");
        LLVMBasicBlockRef afterRange = exit;
        if (loop.var() == splitVar) {
            Chunk chunk = emitChunks(name, extent, exit);
            start = chunk.start();
            extent = chunk.end();
            afterRange = chunk.finished();
        }
        LLVMBasicBlockRef before = LLVMGetInsertBlock(builder);
        LLVMBasicBlockRef header = LLVMAppendBasicBlockInContext(context, function, name + ".header");
        LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(context, function, name + ".body");
        LLVMBuildBr(builder, header);

        LLVMPositionBuilderAtEnd(builder, header);
        LLVMValueRef i = LLVMBuildPhi(builder, i64, name);
        LLVMAddIncoming(i, start, before, 1);
        LLVMBuildCondBr(builder, LLVMBuildICmp(builder, LLVMIntSLT, i, extent, name + ".inside"), body, afterRange);

        LLVMPositionBuilderAtEnd(builder, body);
        loopValues.put(loop.var(), i);
        enclosingLoops.push(loop);
        emit(loop.body());
        enclosingLoops.pop();
        loopValues.remove(loop.var());
        LLVMValueRef next = LLVMBuildNSWAdd(builder, i, LLVMConstInt(i64, 1, 0), name + ".next");
        LLVMAddIncoming(i, next, LLVMGetInsertBlock(builder), 1);
        LLVMValueRef backEdge = LLVMBuildBr(builder, header);
        if (LoopHints.vectorizesFirst(loop)) LoopHints.vectorizeThenUnroll(context, backEdge);
        else if (interleavesPlainLoops && InterleavedLoops.interleaves(loop)) InterleavedLoops.mark(context, backEdge);

        LLVMMoveBasicBlockAfter(exit, LLVMGetLastBasicBlock(function));
        LLVMPositionBuilderAtEnd(builder, exit);
    }

    /** A claimed chunk of a split loop: its range of iterations, and the block to go to when it is done. */
    private record Chunk(LLVMValueRef start, LLVMValueRef end, LLVMBasicBlockRef finished) {}

    /**
     * <pre>
     *              %tag = the run's tag; part 0 opens it, the others wait until it is open (or over)
     *              br %claim (%chunks: as many as SplitCost says, a constant)
     * claim:       claim a chunk %c of the kernel tagged %tag (part 0 from the front, the others from the back),
     *              or br %claimed.all
     * taken:       %start = extent * %c / %chunks; %end = extent * (%c + 1) / %chunks; (the loop over them)
     * finished:    count the chunk finished; br %claim
     * claimed.all: part 0 waits until all %chunks are finished; br %exit
     * </pre>
     * Leaves the builder in the block where a chunk was claimed. With several chunks per thread, a thread that loses
     * its core on a busy machine keeps the others waiting for one small chunk at most.
     */
    private Chunk emitChunks(String name, LLVMValueRef extent, LLVMBasicBlockRef exit) {
        LLVMValueRef runTag = LLVMBuildNSWAdd(builder, tag, runOfSplitLoop(), name + ".tag");
        sharing.callByPart(builder, function, part, sharing.open, sharing.await, sharingState, runTag, name + ".run");

        LLVMValueRef chunks = LLVMConstInt(i64, splitChunks, 0);
        LLVMBasicBlockRef claim = LLVMAppendBasicBlockInContext(context, function, name + ".claim");
        LLVMBasicBlockRef finished = LLVMAppendBasicBlockInContext(context, function, name + ".finished");
        LLVMBasicBlockRef claimedAll = LLVMAppendBasicBlockInContext(context, function, name + ".claimed.all");
        LLVMBuildBr(builder, claim);

        LLVMPositionBuilderAtEnd(builder, finished);
        sharing.finished(builder, sharingState);
        LLVMBuildBr(builder, claim);

        LLVMPositionBuilderAtEnd(builder, claimedAll);
        sharing.callByPart(builder, function, part, sharing.awaitChunks, null, sharingState, chunks, name + ".chunks");
        LLVMBuildBr(builder, exit);

        LLVMPositionBuilderAtEnd(builder, claim);
        LLVMValueRef claimed = sharing.claim(builder, function, sharingState, runTag, part, chunks, claimedAll, name);
        LLVMValueRef start = LLVMBuildSDiv(builder, LLVMBuildNSWMul(builder, extent, claimed, ""), chunks, name + ".start");
        LLVMValueRef end = LLVMBuildSDiv(builder, LLVMBuildNSWMul(builder, extent,
            LLVMBuildNSWAdd(builder, claimed, LLVMConstInt(i64, 1, 0), ""), ""), chunks, name + ".end");
        return new Chunk(start, end, finished);
    }

    /** The number of the split loop's current run: its enclosing loops' indices, flattened (their extents are constant). */
    private LLVMValueRef runOfSplitLoop() {
        LLVMValueRef run = LLVMConstInt(i64, 0, 0);
        for (Iterator<Stmt.For> outermostFirst = enclosingLoops.descendingIterator(); outermostFirst.hasNext(); ) {
            Stmt.For around = outermostFirst.next();
            run = LLVMBuildNSWAdd(builder, LLVMBuildNSWMul(builder, run, expr(around.extent()), ""), loopValues.get(around.var()), "");
        }
        return run;
    }

    private void emitIf(Stmt.If s) {
        LLVMValueRef condition = expr(s.condition());
        LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(context, function, "then");
        LLVMBasicBlockRef otherwise = LLVMAppendBasicBlockInContext(context, function, "else");
        LLVMBasicBlockRef merge = LLVMAppendBasicBlockInContext(context, function, "endif");
        LLVMBuildCondBr(builder, condition, then, otherwise);
        LLVMPositionBuilderAtEnd(builder, then);
        emit(s.then());
        LLVMBuildBr(builder, merge);
        LLVMPositionBuilderAtEnd(builder, otherwise);
        emit(s.otherwise());
        LLVMBuildBr(builder, merge);
        LLVMPositionBuilderAtEnd(builder, merge);
    }

    /** getelementptr inbounds T, ptr %buffer, i64 index (for a view, T its element type and %buffer its storage) */
    private LLVMValueRef element(Buffer buffer, Expr index) {
        LLVMValueRef base = bufferPointers.get(buffer.storage());
        if (base == null) throw new IllegalStateException("kernel touches " + buffer + " which is not among its buffers");
        return gep(type(buffer.elementType()), base, expr(index), "");
    }

    private LLVMValueRef gep(LLVMTypeRef elementType, LLVMValueRef base, LLVMValueRef index, String name) {
        return LLVMBuildInBoundsGEP2(builder, elementType, base, index, 1, new BytePointer(name));
    }

    // ---- expressions

    private LLVMValueRef expr(Expr e) {
        return switch (e) {
            case Expr.IntConst c -> LLVMConstInt(type(c.type()), c.value(), 1);
            case Expr.RealConst c -> LLVMConstReal(type(c.type()), c.type() == ScalarType.F32 ? (float) c.value() : c.value());
            case Expr.Var v -> loopValues.get(v.var());
            case Expr.LocalRef l -> LLVMBuildLoad2(builder, type(l.type()), localSlots.get(l.local()), l.local().name());
            case Expr.Load l -> {
                LLVMValueRef load = LLVMBuildLoad2(builder, type(l.type()), element(l.buffer(), l.index()), "");
                LLVMSetAlignment(load, MachineTypes.byteSize(l.type()));
                yield load;
            }
            case Expr.Op o -> op(o);
            case Expr.Call c -> c.passing() == Expr.Call.Passing.BY_VALUE ? libraryCall(c) : callWithAccumulator(c);
        };
    }

    /** A library call by value, in a loop marked with the loop's trip count for {@link VectorVariants}. */
    private LLVMValueRef libraryCall(Expr.Call c) {
        LLVMValueRef call = call(c.function(), type(c.type()), c.args().stream().map(this::expr).toList());
        Stmt.For loop = enclosingLoops.peek();
        if (loop != null) {
            VectorVariants.markTripCount(context, call, loop.extent() instanceof Expr.IntConst constant ? constant.value() : -1);
        }
        return call;
    }

    /**
     * A library call taking an exact accumulator by pointer: the accumulator value goes to a stack slot in
     * the entry block (so SROA turns it back into registers once the call is inlined), the call gets its
     * address, and the value of an in-place update is the slot's contents afterwards. Every argument is
     * evaluated before the store: another accumulator's call among them (the loss adds log(round(sum)) to its
     * total) uses the same slot.
     */
    private LLVMValueRef callWithAccumulator(Expr.Call c) {
        ScalarType accumulatorType = c.args().getFirst().type();
        List<LLVMValueRef> values = c.args().stream().map(this::expr).toList();
        LLVMValueRef slot = entrySlot(accumulatorType);
        LLVMBuildStore(builder, values.getFirst(), slot);
        List<LLVMValueRef> args = new ArrayList<>();
        args.add(slot);
        args.addAll(values.subList(1, values.size()));
        if (c.passing() == Expr.Call.Passing.READS_FIRST_BY_POINTER) return call(c.function(), type(c.type()), args);
        call(c.function(), voidType, args);
        return LLVMBuildLoad2(builder, type(accumulatorType), slot, "");
    }

    /** One stack slot per accumulator type and kernel, at the top of the entry block. */
    private LLVMValueRef entrySlot(ScalarType type) {
        return accumulatorSlots.computeIfAbsent(type, t -> {
            LLVMBuilderRef atEntry = LLVMCreateBuilderInContext(context);
            LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(function);
            LLVMValueRef first = LLVMGetFirstInstruction(entry);
            if (first == null || first.isNull()) LLVMPositionBuilderAtEnd(atEntry, entry);
            else LLVMPositionBuilderBefore(atEntry, first);
            LLVMValueRef slot = LLVMBuildAlloca(atEntry, type(t), "acc.slot");
            LLVMDisposeBuilder(atEntry);
            return slot;
        });
    }

    private LLVMValueRef op(Expr.Op o) {
        List<LLVMValueRef> a = o.args().stream().map(this::expr).toList();
        ScalarType operand = o.arg(0).type();
        return switch (o.op()) {
            case SELECT -> LLVMBuildSelect(builder, a.get(0), a.get(1), a.get(2), "");
            case CAST -> cast(a.get(0), operand, o.type());
            case BITCAST -> LLVMBuildBitCast(builder, a.get(0), type(o.type()), "");
            case AND -> LLVMBuildAnd(builder, a.get(0), a.get(1), "");
            case OR -> LLVMBuildOr(builder, a.get(0), a.get(1), "");
            case NOT -> LLVMBuildNot(builder, a.get(0), "");
            case LT, LE, GT, GE, EQ, NE -> operand.isMachineFloat() ? floatCompare(o.op(), a) : intCompare(o.op(), a);
            default -> {
                if (operand.isMachineFloat()) yield floatOp(o.op(), a, type(o.type()));
                if (operand.isInteger()) yield intOp(o.op(), a, type(o.type()));
                throw new IllegalStateException(o.op() + " on " + operand + " reached code generation");
            }
        };
    }

    private LLVMValueRef floatOp(ScalarOp op, List<LLVMValueRef> a, LLVMTypeRef t) {
        return switch (op) {
            case ADD -> LLVMBuildFAdd(builder, a.get(0), a.get(1), "");
            case SUB -> LLVMBuildFSub(builder, a.get(0), a.get(1), "");
            case MUL -> LLVMBuildFMul(builder, a.get(0), a.get(1), "");
            case DIV -> LLVMBuildFDiv(builder, a.get(0), a.get(1), "");
            case REM -> LLVMBuildFRem(builder, a.get(0), a.get(1), "");
            case NEG -> LLVMBuildFNeg(builder, a.get(0), "");
            case ABS -> call("llvm.fabs" + suffix(t), t, a);
            // ONNX Min, Max and Relu propagate NaN: llvm.minimum/maximum do, minnum/maxnum do not.
            case MIN -> call("llvm.minimum" + suffix(t), t, a);
            case MAX -> call("llvm.maximum" + suffix(t), t, a);
            case SQRT -> call("llvm.sqrt" + suffix(t), t, a);
            // llvm.fma rounds once on every target (an instruction or a library call); llvm.fmuladd would let the
            // target choose one rounding or two, and so the bits.
            case MAC -> multiplyAdd == MultiplyAdd.FUSED ? call("llvm.fma" + suffix(t), t, List.of(a.get(1), a.get(2), a.get(0)))
                : LLVMBuildFAdd(builder, a.get(0), LLVMBuildFMul(builder, a.get(1), a.get(2), ""), "");
            case EXACT_MAC -> call("llvm.fmuladd" + suffix(t), t, List.of(a.get(1), a.get(2), a.get(0)));
            default -> throw new IllegalStateException(op + " on a machine float must be lowered by the datatype");
        };
    }

    private LLVMValueRef intOp(ScalarOp op, List<LLVMValueRef> a, LLVMTypeRef t) {
        return switch (op) {
            case ADD -> LLVMBuildAdd(builder, a.get(0), a.get(1), "");
            case SUB -> LLVMBuildSub(builder, a.get(0), a.get(1), "");
            case MUL -> LLVMBuildMul(builder, a.get(0), a.get(1), "");
            case DIV -> LLVMBuildSDiv(builder, a.get(0), a.get(1), "");
            case REM -> LLVMBuildSRem(builder, a.get(0), a.get(1), "");
            case XOR -> LLVMBuildXor(builder, a.get(0), a.get(1), "");
            case SHIFT_RIGHT -> LLVMBuildLShr(builder, a.get(0), a.get(1), "");
            case NEG -> LLVMBuildNeg(builder, a.get(0), "");
            case ABS -> call("llvm.abs" + suffix(t), t, List.of(a.get(0), LLVMConstInt(LLVMInt1TypeInContext(context), 0, 0)));
            case MIN -> call("llvm.smin" + suffix(t), t, a);
            case MAX -> call("llvm.smax" + suffix(t), t, a);
            case MAC -> LLVMBuildAdd(builder, a.get(0), LLVMBuildMul(builder, a.get(1), a.get(2), ""), "");
            default -> throw new IllegalStateException(op + " on integers");
        };
    }

    /** Ordered comparisons (false when either side is NaN), except NE, which is true then. */
    private LLVMValueRef floatCompare(ScalarOp op, List<LLVMValueRef> a) {
        int predicate = switch (op) {
            case LT -> LLVMRealOLT;
            case LE -> LLVMRealOLE;
            case GT -> LLVMRealOGT;
            case GE -> LLVMRealOGE;
            case EQ -> LLVMRealOEQ;
            default -> LLVMRealUNE;
        };
        return LLVMBuildFCmp(builder, predicate, a.get(0), a.get(1), "");
    }

    private LLVMValueRef intCompare(ScalarOp op, List<LLVMValueRef> a) {
        int predicate = switch (op) {
            case LT -> LLVMIntSLT;
            case LE -> LLVMIntSLE;
            case GT -> LLVMIntSGT;
            case GE -> LLVMIntSGE;
            case EQ -> LLVMIntEQ;
            default -> LLVMIntNE;
        };
        return LLVMBuildICmp(builder, predicate, a.get(0), a.get(1), "");
    }

    /**
     * Conversions between machine types. Float to integer saturates (llvm.fptosi.sat: NaN gives 0), which is
     * defined for every input, unlike fptosi, and is what the interpreter (Java's casts) computes.
     */
    private LLVMValueRef cast(LLVMValueRef v, ScalarType from, ScalarType to) {
        if (from == to) return v;
        LLVMTypeRef target = type(to);
        if (to == ScalarType.BOOL) {
            return from.isMachineFloat()
                ? LLVMBuildFCmp(builder, LLVMRealUNE, v, LLVMConstReal(type(from), 0), "")
                : LLVMBuildICmp(builder, LLVMIntNE, v, LLVMConstInt(type(from), 0, 0), "");
        }
        if (from == ScalarType.BOOL) {
            return to.isMachineFloat() ? LLVMBuildUIToFP(builder, v, target, "") : LLVMBuildZExt(builder, v, target, "");
        }
        if (from.isMachineFloat() && to.isMachineFloat()) {
            return MachineTypes.byteSize(to) > MachineTypes.byteSize(from)
                ? LLVMBuildFPExt(builder, v, target, "") : LLVMBuildFPTrunc(builder, v, target, "");
        }
        if (from.isInteger() && to.isMachineFloat()) return LLVMBuildSIToFP(builder, v, target, "");
        if (from.isMachineFloat() && to.isInteger()) {
            return call("llvm.fptosi.sat" + suffix(target) + suffix(type(from)), target, List.of(v));
        }
        return MachineTypes.byteSize(to) > MachineTypes.byteSize(from)
            ? LLVMBuildSExt(builder, v, target, "") : LLVMBuildTrunc(builder, v, target, "");
    }

    /** A call to a function of this module, declared on first use (library functions are linked in later). */
    private LLVMValueRef call(String callee, LLVMTypeRef result, List<LLVMValueRef> args) {
        PointerPointer<LLVMTypeRef> paramTypes = new PointerPointer<>(args.size());
        PointerPointer<LLVMValueRef> values = new PointerPointer<>(args.size());
        for (int i = 0; i < args.size(); i++) {
            paramTypes.put(i, LLVMTypeOf(args.get(i)));
            values.put(i, args.get(i));
        }
        LLVMTypeRef fnType = LLVMFunctionType(result, paramTypes, args.size(), 0);
        LLVMValueRef fn = LLVMGetNamedFunction(module, callee);
        if (fn == null || fn.isNull()) fn = LLVMAddFunction(module, callee, fnType);
        return LLVMBuildCall2(builder, fnType, fn, values, args.size(), "");
    }

    // ---- types and attributes

    private LLVMTypeRef type(ScalarType t) {
        return switch (t) {
            case BOOL -> LLVMInt1TypeInContext(context);
            case I8 -> LLVMInt8TypeInContext(context);
            case I16 -> LLVMInt16TypeInContext(context);
            case I32 -> LLVMInt32TypeInContext(context);
            case I64 -> i64;
            case F32 -> LLVMFloatTypeInContext(context);
            case F64 -> LLVMDoubleTypeInContext(context);
            case I128, I256, I512, I1024, I2048, I4096 -> LLVMIntTypeInContext(context, MachineTypes.byteSize(t) * 8);
            case REAL, ACC -> throw new IllegalStateException(t + " reached code generation: the datatype was not lowered");
        };
    }

    /** An intrinsic's overload suffix: .f32, .i64, ... */
    private String suffix(LLVMTypeRef t) {
        if (t.equals(LLVMFloatTypeInContext(context))) return ".f32";
        if (t.equals(LLVMDoubleTypeInContext(context))) return ".f64";
        return ".i" + LLVMGetIntTypeWidth(t);
    }

    /** void (ptr, ptr, ...) */
    private LLVMTypeRef functionType(LLVMTypeRef result, int pointerParams) {
        return functionType(result, pointerParams, 0, 0);
    }

    /** A split kernel's function: void (ptr x buffers, ptr %sharing, i64 %tag, i64 %part, i64 %parts) */
    private LLVMTypeRef splitKernelType(int buffers) {
        return functionType(voidType, buffers + 1, 2, 0);
    }

    /** void (ptr x pointers, i64 x integers, ptr x trailingPointers) */
    private LLVMTypeRef functionType(LLVMTypeRef result, int pointers, int integers, int trailingPointers) {
        int count = pointers + integers + trailingPointers;
        PointerPointer<LLVMTypeRef> params = new PointerPointer<>(count);
        for (int i = 0; i < count; i++) params.put(i, i >= pointers && i < pointers + integers ? i64 : ptrType);
        return LLVMFunctionType(result, params, count, 0);
    }

    private void addFunctionAttribute(LLVMValueRef fn, String attribute) {
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, enumAttribute(attribute));
    }

    private void addParamAttribute(LLVMValueRef fn, int param, String attribute) {
        LLVMAddAttributeAtIndex(fn, param + 1, enumAttribute(attribute));
    }

    private org.bytedeco.llvm.LLVM.LLVMAttributeRef enumAttribute(String attribute) {
        int kind = LLVMGetEnumAttributeKindForName(attribute, attribute.length());
        return LLVMCreateEnumAttribute(context, kind, 0);
    }

    private static void name(LLVMValueRef value, String name) {
        LLVMSetValueName2(value, name, name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }
}
