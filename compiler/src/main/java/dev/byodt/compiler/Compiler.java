package dev.byodt.compiler;

import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.codegen.LibraryLinker;
import dev.byodt.compiler.codegen.LlvmCodegen;
import dev.byodt.compiler.codegen.Optimizer;
import dev.byodt.compiler.codegen.ProgramSignature;
import dev.byodt.compiler.codegen.VectorWidth;
import dev.byodt.compiler.dtype.Datatype;
import dev.byodt.compiler.dtype.Float32;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.lower.DatatypeLowering;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.MemoryPlan;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.target.Llvm;
import dev.byodt.runtime.ByodtException;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeContextRef;
import org.bytedeco.llvm.LLVM.LLVMTargetDataRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * The compiler's front door: a graph in, an optimized LLVM module out (to run on the host or write to
 * files). The stages, in order: graph to loop nests (GraphLowering), abstract REAL/ACC to the datatype's
 * machine types and library calls (DatatypeLowering), workspace layout (MemoryPlan), LLVM IR
 * (LlvmCodegen), the datatype library linked in, verification, O3.
 */
public final class Compiler {
    private Compiler() {}

    public static CompiledModule compile(Graph graph, CompileOptions options) {
        return compile(GraphLowering.lower(graph), options);
    }

    /** Compiles a program of loop nests in abstract types (what GraphLowering makes of a graph). */
    public static CompiledModule compile(Program program, CompileOptions options) {
        Datatype datatype = datatype(options.datatype());
        Program machine = DatatypeLowering.lower(program, datatype);
        MemoryPlan plan = MemoryPlan.of(machine);
        ProgramSignature signature = new ProgramSignature(options.entrySymbol(), machine.inputSpecs(),
            machine.outputSpecs(), plan.workspaceBytes());

        Llvm.initializeNative();
        LLVMTargetMachineRef targetMachine = options.target().createTargetMachine();
        LLVMOrcThreadSafeContextRef context = LLVMOrcCreateNewThreadSafeContext();
        LLVMModuleRef module = null;
        try {
            module = LlvmCodegen.generate(machine, plan, options.entrySymbol(), LLVMOrcThreadSafeContextGetContext(context));
            LLVMSetTarget(module, options.target().triple());
            LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(targetMachine);
            LLVMSetModuleDataLayout(module, layout);
            LLVMDisposeTargetData(layout);
            if (callsLibrary(machine)) {
                String library = datatype.library().orElseThrow(() -> new IllegalStateException(
                    "datatype " + datatype.name() + " lowered operations to calls but has no library"));
                LibraryLinker.link(module, library, options.target().triple());
            }
            VectorWidth.widen(module, options.target());
            Optimizer.verify(module);
            if (options.optimize()) Optimizer.optimize(module, targetMachine);
            return new CompiledModule(context, module, targetMachine, options.target(), signature, options.optimize());
        } catch (RuntimeException e) {
            if (module != null) LLVMDisposeModule(module);
            LLVMDisposeTargetMachine(targetMachine);
            LLVMOrcDisposeThreadSafeContext(context);
            throw e;
        }
    }

    /** Compiles for the host and loads the result into this process. */
    public static HostModel jit(CompiledModule module) {
        return HostModel.jit(module);
    }

    static Datatype datatype(String name) {
        if (name.equals("float32")) return new Float32();
        throw new ByodtException("datatype '" + name + "' is not registered; registered: float32");
    }

    private static boolean callsLibrary(Program program) {
        for (Kernel k : program.kernels()) {
            boolean[] found = {false};
            KernelWalker.forEachExpr(k.body(), e -> found[0] |= e instanceof Expr.Call);
            if (found[0]) return true;
        }
        return false;
    }
}
