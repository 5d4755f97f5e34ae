package dev.byodt.compiler.codegen;

import dev.byodt.compiler.lower.MemoryPlan;
import dev.byodt.compiler.target.Llvm;
import dev.byodt.runtime.Activity;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMOrcDefinitionGeneratorRef;
import org.bytedeco.llvm.LLVM.LLVMOrcJITDylibRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeModuleRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * A compiled model running in this process: ORC's LLJIT turns the module into machine code, and the entry
 * function is called through java.lang.foreign on the tensors' off-heap memory, in place.
 *
 * <p>Thread-safe: each thread that runs the model gets its own workspace. Close it only when no thread
 * is running it any more; closing frees the machine code.
 *
 * <p>A model compiled for several threads ({@link ProgramSignature#threads()}) keeps that many minus one
 * worker threads ({@link PartWorkers}): each call hands every worker its part and runs part 0 on the caller's
 * thread, each thread with its own workspace for scratch buffers and the caller's for the tensors between kernels.
 * Its calls take turns. The workers help with the split kernels when they get a core in time; part 0 can do all
 * the work alone.
 */
public final class HostModel implements LoadedModel {
    private final ProgramSignature signature;
    private final LLVMOrcLLJITRef jit;
    private final MethodHandle entry;
    private final Arena workspaces = Arena.ofShared();
    private final ThreadLocal<MemorySegment> workspace;
    private final PartWorkers workers;
    /** The state the threads of a call share its split kernels' work in ({@link WorkSharing}). */
    private final MemorySegment sharing;
    /** Held by a call of a model for several threads: the workers and the shared state serve one call at a time. */
    private final Object partsInUse = new Object();
    private boolean closed;

    private HostModel(ProgramSignature signature, LLVMOrcLLJITRef jit, MethodHandle entry) {
        this.signature = signature;
        this.jit = jit;
        this.entry = entry;
        long bytes = signature.workspaceBytes();
        this.workspace = ThreadLocal.withInitial(() -> bytes == 0 ? MemorySegment.NULL : allocateWorkspace(bytes));
        int threads = signature.threads();
        this.workers = threads == 1 ? null : new PartWorkers(threads - 1, "byodt-model-part");
        this.sharing = threads == 1 ? null : workspaces.allocate(WorkSharing.STATE_BYTES, MemoryPlan.ALIGNMENT);
    }

    /** JIT-compiles a module built for the host; the compiled module can be closed afterwards. */
    public static HostModel jit(CompiledModule compiled) {
        MemoryBudget.check(compiled.signature());
        Llvm.initializeNative();
        LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
        // The JIT's own copy of the target machine: the builder takes ownership of it.
        LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder,
            LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(compiled.target().createTargetMachine()));
        LLVMOrcLLJITRef jit = new LLVMOrcLLJITRef();
        Llvm.check(LLVMOrcCreateLLJIT(jit, builder), "starting the JIT");
        try {
            LLVMOrcJITDylibRef main = LLVMOrcLLJITGetMainJITDylib(jit);
            // O3 turns copy and fill loops into memcpy/memset calls: resolve them from this process.
            LLVMOrcDefinitionGeneratorRef processSymbols = new LLVMOrcDefinitionGeneratorRef();
            Llvm.check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(processSymbols,
                LLVMOrcLLJITGetGlobalPrefix(jit), null, null), "looking up this process's symbols");
            LLVMOrcJITDylibAddGenerator(main, processSymbols);

            // The JIT takes ownership of the module it compiles, so it gets a copy and the original stays usable.
            LLVMModuleRef clone = LLVMCloneModule(compiled.module());
            List<String> kernels = Activity.recorded() ? exportKernels(clone) : List.of();
            LLVMOrcThreadSafeModuleRef copy = LLVMOrcCreateNewThreadSafeModule(clone, compiled.threadSafeContext());
            Llvm.check(LLVMOrcLLJITAddLLVMIRModule(jit, main, copy), "adding the model to the JIT");
            long[] address = new long[1];
            String symbol = compiled.signature().entrySymbol();
            Llvm.check(LLVMOrcLLJITLookup(jit, address, symbol), "compiling " + symbol);
            if (Activity.recorded()) recordAddresses(jit, symbol, address[0], kernels);

            ProgramSignature signature = compiled.signature();
            int params = signature.inputs().size() + signature.outputs().size() + 1;
            List<MemoryLayout> layouts = new ArrayList<>(Collections.nCopies(params, ValueLayout.ADDRESS));
            if (signature.threads() > 1) {
                layouts.addAll(List.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
                params += 3;
            }
            MethodHandle handle = Linker.nativeLinker().downcallHandle(MemorySegment.ofAddress(address[0]),
                FunctionDescriptor.ofVoid(layouts.toArray(new MemoryLayout[0])));
            return new HostModel(signature, jit, handle.asSpreader(Object[].class, params));
        } catch (RuntimeException e) {
            LLVMOrcDisposeLLJIT(jit);
            throw e;
        }
    }

    /**
     * Gives the kernels of {@code module} external linkage, so that the JIT can say where each one's code is;
     * returns their names. Only a process that runs a user's datatype for a parent does this: linkage changes
     * nothing a kernel computes.
     */
    private static List<String> exportKernels(LLVMModuleRef module) {
        List<String> kernels = new ArrayList<>();
        for (LLVMValueRef f = LLVMGetFirstFunction(module); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) {
            if (LLVMIsDeclaration(f) != 0 || LLVMGetLinkage(f) != LLVMInternalLinkage) continue;
            LLVMSetLinkage(f, LLVMExternalLinkage);
            kernels.add(LLVMGetValueName(f).getString());
        }
        return kernels;
    }

    /** Tells the parent process where the entry function and each kernel start, to name a crash address. */
    private static void recordAddresses(LLVMOrcLLJITRef jit, String entry, long entryAddress, List<String> kernels) {
        Map<String, Long> addresses = new LinkedHashMap<>();
        addresses.put(entry, entryAddress);
        long[] address = new long[1];
        for (String kernel : kernels) {
            Llvm.check(LLVMOrcLLJITLookup(jit, address, kernel), "compiling " + kernel);
            addresses.put(kernel, address[0]);
        }
        Activity.functions(addresses);
    }

    public ProgramSignature signature() { return signature; }

    @Override
    public List<TensorSpec> inputs() { return signature.inputs(); }

    @Override
    public List<TensorSpec> outputs() { return signature.outputs(); }

    @Override
    public List<Tensor> run(List<Tensor> inputs) {
        List<Tensor> outputs = new ArrayList<>();
        for (TensorSpec spec : signature.outputs()) outputs.add(Tensor.zeros(spec.type(), spec.shape()));
        run(inputs, outputs);
        return outputs;
    }

    /** Runs the model, writing into the caller's output tensors (which must match {@link #outputs()}). */
    public void run(List<Tensor> inputs, List<Tensor> outputs) {
        check("input", signature.inputs(), inputs);
        check("output", signature.outputs(), outputs);
        Object[] args = new Object[inputs.size() + outputs.size() + 1];
        int i = 0;
        for (Tensor t : inputs) args[i++] = t.data();
        for (Tensor t : outputs) args[i++] = t.data();
        args[i] = workspace.get();
        try (Activity.Step step = Activity.userCode("running the model")) {
            if (workers == null) entry.invoke(args);
            else runParts(args);
        } catch (Throwable e) {
            throw new IllegalStateException("calling the compiled model failed", e);
        }
    }

    /** Calls the entry function of a model for several threads from each of them, part 0 on this thread. */
    private void runParts(Object[] shared) throws Throwable {
        synchronized (partsInUse) {
            callParts(shared);
        }
    }

    /**
     * Zeroes the shared state, then runs part 0 here and the others on the workers. A worker that has not started
     * by the time part 0 is done is withdrawn: part 0 then did its share, and on a busy machine waiting for the
     * worker to be scheduled would only add that wait to the call. A started worker is waited for, as it may still
     * be in the kernels after the last split one.
     */
    private void callParts(Object[] shared) throws Throwable {
        sharing.fill((byte) 0);
        workers.run(part -> callPart(shared, part == 0 ? shared[shared.length - 1] : workspace.get(), part));
    }

    private void callPart(Object[] shared, Object threadWorkspace, long part) {
        Object[] args = Arrays.copyOf(shared, shared.length + 3);
        args[shared.length] = threadWorkspace;
        args[shared.length + 1] = part;
        args[shared.length + 2] = sharing;
        try {
            entry.invoke(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private static void check(String role, List<TensorSpec> specs, List<Tensor> tensors) {
        if (tensors.size() != specs.size()) {
            throw new ByodtException("the model has " + specs.size() + " " + role + (specs.size() == 1 ? "" : "s")
                + " but was given " + tensors.size());
        }
        for (int i = 0; i < specs.size(); i++) {
            TensorSpec spec = specs.get(i);
            Tensor t = tensors.get(i);
            if (t.type() != spec.type()) {
                throw new ByodtException(role + " '" + spec.name() + "' has type " + t.type()
                    + " but the model was compiled for " + spec.type());
            }
            if (!Arrays.equals(t.shape(), spec.shape())) {
                throw new ByodtException(role + " '" + spec.name() + "' has shape " + Shapes.format(t.shape())
                    + " but the model was compiled for " + Shapes.format(spec.shape()));
            }
        }
    }

    private synchronized MemorySegment allocateWorkspace(long bytes) {
        if (closed) throw new IllegalStateException("the model was closed");
        return workspaces.allocate(bytes, 64);
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        if (workers != null) workers.close();
        LLVMOrcDisposeLLJIT(jit);
        workspaces.close();
    }
}
