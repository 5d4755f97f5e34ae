package dev.byodt.compiler;

import dev.byodt.compiler.block.BlockDots;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostConversion;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.codegen.HostTables;
import dev.byodt.compiler.codegen.LibraryLinker;
import dev.byodt.compiler.codegen.LlvmCodegen;
import dev.byodt.compiler.codegen.Optimizer;
import dev.byodt.compiler.codegen.ProgramSignature;
import dev.byodt.compiler.codegen.VectorVariants;
import dev.byodt.compiler.codegen.VectorWidth;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BlockChoice;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.CallItems;
import dev.byodt.compiler.dtype.Datatype;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.dtype.LoweringLog;
import dev.byodt.compiler.dtype.LoweringTarget;
import dev.byodt.compiler.dtype.NativeLibrary;
import dev.byodt.compiler.dtype.RegisteredDatatype;
import dev.byodt.compiler.dtype.StochasticRounding;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.lower.ConcatsInPlace;
import dev.byodt.compiler.lower.DatatypeBoundaries;
import dev.byodt.compiler.lower.DatatypeLowering;
import dev.byodt.compiler.lower.DecodedOperands;
import dev.byodt.compiler.lower.DatatypePlan;
import dev.byodt.compiler.lower.FunctionTables;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.MachineTypes;
import dev.byodt.compiler.lower.MemoryPlan;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.lower.RandomCounters;
import dev.byodt.compiler.ops.NodeArithmetic;
import dev.byodt.compiler.target.Llvm;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.Activity;
import dev.byodt.runtime.StageTimes;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeContextRef;
import org.bytedeco.llvm.LLVM.LLVMTargetDataRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * The compiler's front door: a graph in, an optimized LLVM module out (to run on the host or write to
 * files). The stages, in order: graph to loop nests (GraphLowering), a datatype per kernel with conversions
 * where datatypes meet (DatatypeBoundaries), the operands of dot products decoded once per tensor where the
 * accumulation allows it (DecodedOperands), abstract REAL/ACC to the datatypes' machine types and library
 * calls (DatatypeLowering, which must find a lowering for every operation), tabulated functions as loads
 * (FunctionTables), the passes of the target's
 * extension (the P extension's), Concats whose inputs are written in place (ConcatsInPlace), the libraries loaded and their functions checked against the calls,
 * workspace layout (MemoryPlan), LLVM IR (LlvmCodegen), the libraries linked in, verification, O3.
 */
public final class Compiler {
    private Compiler() {}

    /** Compiles a graph, each operator in its schedule tuned for the target and the datatype of its node. */
    public static CompiledModule compile(Graph graph, CompileOptions options) {
        BlockChoice blocks = options.blocks();
        Optional<String> rounding = Optional.ofNullable(options.datatypes().options().get("rounding"));
        int srBits = Integer.parseInt(options.datatypes().options().getOrDefault(StochasticRounding.BITS_OPTION, String.valueOf(StochasticRounding.DEFAULT_BITS)));
        CallItems items = CallItems.of(graph.inputs().isEmpty() || graph.inputs().getFirst().type().shape().length == 0 ? 1
            : graph.inputs().getFirst().type().shape()[0]);
        Program program = StageTimes.time("lowering the graph to loop nests", () -> GraphLowering.lowerScheduled(graph, arithmeticOf(options), (node, bufferOf) ->
            blocks.forNode(node.name(), node.outputs().stream().map(Value::name).toList())
                .map(name -> BlockFormat.resolve(name, options.datatypes().registry()))
                .map(format -> rounding.map(format::withElementRounding).orElse(format).withRandomBits(srBits, options.datatypes().seed())
                    .withCallItems(items))
                .flatMap(format -> BlockDots.lower(node, bufferOf, format, blocks.accumulation())),
            (producer, activation) -> options.fuseChains() && Stream.of(producer.name(), activation.name()).allMatch(name ->
                Stream.of(producer, activation).allMatch(outputsOf -> inFloat32(options, name, outputsOf)))));
        return compile(program, options, Optional.of(items));
    }

    /**
     * Whether the kernel of that name writing {@code outputsOf}'s outputs computes in float32 itself, which a node's
     * kernel with another's activation fused in must (whichever name and outputs the datatype choice goes by), so
     * that no datatype boundary between the two is lost.
     */
    private static boolean inFloat32(CompileOptions options, String name, Node outputsOf) {
        DatatypeChoice choice = options.datatypes();
        DatatypeInstance instance = choice.registry().instance(
            choice.datatypeFor(name, outputsOf.outputs().stream().map(Value::name).toList()), choice.options());
        return instance.definition().isReference() && !StochasticRounding.isStochastic(instance);
    }

    /**
     * The elements of a node's datatype (--dtype-map's, else --dtype's) one of the target's vectors holds: what
     * the node's tuned schedules, and a training step's gradient kernels of the node, are sized for. A
     * stochastically rounding node's schedule is the same on every target ({@link #STOCHASTIC_LANES}), so that its
     * loop nest, whose counters its random bits hash (RandomCounters), is. With them, whether the node computes in
     * the machine's float32: the reference datatype's products and sums are float32 instructions whatever
     * --accumulate says, every other datatype's are emulated (library calls, decoding, rounding, wider sums); and the
     * lanes of the register tiles that suit its sums: float32's, or, where an emulated datatype's exact sums may run in
     * double on the host (DoubleSums), the target's doubles; and whether its convolutions may take Winograd's transforms.
     */
    public static Function<Node, NodeArithmetic> arithmeticOf(CompileOptions options) {
        return node -> {
            DatatypeChoice choice = options.datatypes();
            String name = choice.datatypeFor(node.name(), node.outputs().stream().map(Value::name).toList());
            DatatypeInstance instance = choice.registry().instance(name, choice.options());
            int lanes = StochasticRounding.isStochastic(instance) ? STOCHASTIC_LANES
                : options.target().lanes(MachineTypes.byteSize(instance.storage()) * Byte.SIZE);
            boolean reference = instance.definition().isReference();
            boolean doubleSums = options.target().loweringTarget() == LoweringTarget.HOST && !StochasticRounding.isStochastic(instance)
                && choice.accumulationOf(instance).equals(AccumulationMode.EXACT) && instance.exactSumsInDouble();
            return new NodeArithmetic(lanes, reference, reference ? lanes : doubleSums ? options.target().lanes(Double.SIZE) : 0,
                StochasticRounding.isStochastic(instance), options.convAlgorithm() == ConvAlgorithm.WINOGRAD);
        };
    }

    /** The lanes stochastically rounding nodes are scheduled for on every target: a 256-bit vector's of 32-bit lanes. */
    static final int STOCHASTIC_LANES = 8;

    /**
     * Compiles a program of loop nests in abstract types (what GraphLowering makes of a graph), whose stochastic
     * roundings count within the call: a program of no items (a training step, a test's kernels).
     */
    public static CompiledModule compile(Program program, CompileOptions options) {
        return compile(program, options, Optional.empty());
    }

    /** As {@link #compile(Program, CompileOptions)}, a graph's program with {@code items}, its calls' items in the run. */
    private static CompiledModule compile(Program program, CompileOptions options, Optional<CallItems> items) {
        LoweringLog log = new LoweringLog();
        DatatypePlan plan = StageTimes.time("choosing each kernel's datatype", () -> DecodedOperands.apply(plan(program, options, log)));
        Program machine = StageTimes.time("lowering the datatypes", () -> lowered(plan, log, options, items));
        MemoryPlan memory = MemoryPlan.of(machine);
        Activity.ownCode("generating and optimizing the model's code");
        ProgramSignature signature = new ProgramSignature(options.entrySymbol(), machine.inputSpecs(),
            machine.outputSpecs(), memory.workspaceBytes(), options.threads());

        Llvm.initializeNative();
        LLVMTargetMachineRef targetMachine = options.target().createTargetMachine();
        LLVMOrcThreadSafeContextRef context = LLVMOrcCreateNewThreadSafeContext();
        LLVMModuleRef module = null;
        List<LLVMModuleRef> libraries = new ArrayList<>();
        try {
            LLVMContextRef llvmContext = LLVMOrcThreadSafeContextGetContext(context);
            LibraryCalls calls = LibraryCalls.of(machine, options.target().extension()
                .map(extension -> extension.functions(options.target())).orElse(List.of()));
            if (!calls.isEmpty()) {
                StageTimes.time("loading the datatype libraries", () -> {
                    for (NativeLibrary library : libraries(plan, log, options.target())) {
                        libraries.add(LibraryLinker.load(library, options.target(), llvmContext));
                    }
                });
                calls.check(libraries, log, libraryOfDatatype(plan));
            }
            boolean unrolls = unrollsLoops(plan, options.target());
            module = StageTimes.time("generating LLVM IR", () -> LlvmCodegen.generate(machine, memory, options.entrySymbol(),
                llvmContext, !unrolls, options.threads(), options.leastSplitWork(), options.multiplyAdd()));
            LLVMSetTarget(module, options.target().triple());
            LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(targetMachine);
            LLVMSetModuleDataLayout(module, layout);
            LLVMDisposeTargetData(layout);
            LLVMModuleRef linked = module;
            StageTimes.time("linking the datatype libraries in", () -> {
                while (!libraries.isEmpty()) {
                    LLVMModuleRef library = libraries.removeFirst();
                    if (calls.anyDefinedBy(library)) LibraryLinker.link(linked, library, options.inlineLibraries());
                    else LLVMDisposeModule(library);
                }
            });
            VectorWidth.widen(module, options.target());
            Optimizer.verify(module);
            if (options.optimize()) Optimizer.optimize(module, targetMachine, options.inlineLibraries(), unrolls);
            else VectorVariants.forgetTripCounts(module);
            return new CompiledModule(context, module, targetMachine, options.target(), signature, options.optimize(),
                log.fallbacks());
        } catch (RuntimeException e) {
            libraries.forEach(library -> LLVMDisposeModule(library));
            if (module != null) LLVMDisposeModule(module);
            LLVMDisposeTargetMachine(targetMachine);
            LLVMOrcDisposeThreadSafeContext(context);
            throw e;
        }
    }

    /** The plan's kernels in machine types and library calls, the target's passes over them, and the Concats in place. */
    private static Program lowered(DatatypePlan plan, LoweringLog log, CompileOptions options, Optional<CallItems> items) {
        Program machine = DatatypeLowering.lower(plan, log, items);
        log.checkComplete();
        machine = RandomCounters.apply(machine, plan, options.datatypes().seed(), options.callCounter(), items);
        machine = FunctionTables.apply(machine, instances(plan), HostTables::of);
        options.target().check(options.datatypes());
        for (UnaryOperator<Program> pass : options.target().passes(options.datatypes())) machine = pass.apply(machine);
        return ConcatsInPlace.apply(machine);
    }

    /**
     * Whether LLVM unrolls and interleaves loops: not where some kernel computes in an emulated datatype (not
     * float32) on a target with vector units. There each iteration is already a vector of emulated operations,
     * tens of instructions each, so the copies multiply the code and LLVM's time without making it faster:
     * mobilenet_v2 in posit8 took 40 s of CPU to compile (2 MB of machine code) and takes 5 s without, and
     * bench-dtypes' ratios and LeNet-5's run times are no worse. Its loops that call no library function are
     * interleaved all the same ({@link dev.byodt.compiler.codegen.InterleavedLoops}). RISC-V targets (no vector unit) keep unrolling,
     * which saves over a quarter of the instructions LeNet-5 executes in fxp16_13 (3.30 rather than 4.64 million
     * on rv64gc).
     */
    private static boolean unrollsLoops(DatatypePlan plan, Target target) {
        boolean emulated = plan.kernelDatatypes().stream().anyMatch(d -> d != plan.boundary());
        return !emulated || target.isRiscv();
    }

    /** Compiles for the host and loads the result into this process. */
    public static HostModel jit(CompiledModule module) {
        return HostModel.jit(module);
    }

    /**
     * The datatype of each kernel: the --dtype-map pattern matching its node or output tensor names, else
     * --dtype. One Datatype object per distinct name, which the boundary pass compares by identity.
     */
    private static DatatypePlan plan(Program program, CompileOptions options, LoweringLog log) {
        DatatypeChoice choice = options.datatypes();
        choice.instances();
        DatatypeInstance referenceInstance = choice.registry().reference();
        Optional<DatatypeInstance> fallback = choice.fallbackToFloat32() ? Optional.of(referenceInstance) : Optional.empty();
        Datatype reference = datatype(referenceInstance, choice, options.target(), Optional.empty(), log);
        Map<String, Datatype> byName = new HashMap<>();
        List<Datatype> chosen = new ArrayList<>();
        for (Kernel k : program.kernels()) {
            String name = choice.datatypeFor(k.name(), k.outputs().stream().map(Buffer::name).toList());
            chosen.add(byName.computeIfAbsent(name, n -> {
                DatatypeInstance instance = choice.registry().instance(n, choice.options());
                return instance.definition().isReference() ? reference : datatype(instance, choice, options.target(), fallback, log);
            }));
        }
        return DatatypeBoundaries.plan(program, chosen, reference);
    }

    private static Datatype datatype(DatatypeInstance instance, DatatypeChoice choice, Target target,
                                     Optional<DatatypeInstance> fallback, LoweringLog log) {
        return new RegisteredDatatype(instance, choice.accumulationOf(instance), target.loweringTarget(), fallback, log,
            (i, fromF64, toF32) -> HostConversion.of(i.library().orElseThrow(() -> new dev.byodt.runtime.ByodtException(
                "datatype " + i + " has no library to convert constants with")), fromF64, toF32, i.storage(), choice.seed()));
    }

    /**
     * The libraries of the plan's datatypes and of their accumulation modes, float32's when an operation fell
     * back to it, and the target's extension's library when it has one (linked only if a lowering calls it).
     */
    private static Set<NativeLibrary> libraries(DatatypePlan plan, LoweringLog log, Target target) {
        Set<NativeLibrary> all = new LinkedHashSet<>();
        target.extension().ifPresent(extension -> all.add(extension.library(target)));
        for (Datatype d : plan.kernelDatatypes()) {
            d.library().ifPresent(all::add);
            d.accumulationLibrary().ifPresent(all::add);
        }
        if (log.usedFallback()) plan.boundary().library().ifPresent(all::add);
        return all;
    }

    /** The datatype instances the plan's kernels compute in (float32, the reference, has none). */
    private static List<DatatypeInstance> instances(DatatypePlan plan) {
        return plan.kernelDatatypes().stream().filter(d -> d instanceof RegisteredDatatype)
            .map(d -> ((RegisteredDatatype) d).instance()).distinct().toList();
    }

    private static Map<String, NativeLibrary> libraryOfDatatype(DatatypePlan plan) {
        Map<String, NativeLibrary> map = new HashMap<>();
        for (Datatype d : plan.kernelDatatypes()) d.library().ifPresent(l -> map.put(d.name(), l));
        plan.boundary().library().ifPresent(l -> map.put(plan.boundary().name(), l));
        return map;
    }
}
