package dev.byodt.cli;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Targets;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.block.BlockDots;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BlockChoice;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The model and the options that decide how it is compiled, shared by compile and run. */
final class ModelOptions {
    @Parameters(index = "0", paramLabel = "MODEL", description = "The ONNX model file.")
    Path model;

    @Mixin
    ShapeOptions shapes;

    @Mixin
    PluginOptions plugins;

    @Option(names = "--target", defaultValue = "host", paramLabel = "TARGET",
        description = "Target to generate code for: host (this machine's CPU), riscv64 (rv64gc, lp64d), riscv32 "
            + "(rv32imac, ilp32), riscv32f (rv32imafc, ilp32f), riscv64p / riscv32p (with the P extension 0.9.x). "
            + "Default: ${DEFAULT-VALUE}.")
    String target;

    @Option(names = "--mattr", paramLabel = "+p",
        description = "Extra target features: +p (the RISC-V packed-SIMD P extension 0.9.x) on a RISC-V target.")
    String mattr;

    @Option(names = "--p-opcode", paramLabel = "OPCODE",
        description = "Major opcode of P instructions: 0x77 (P 0.9.2 and later, the default) or 0x7f (Andes 0.5.x parts).")
    String pOpcode;

    @Option(names = "--dtype", defaultValue = "float32", paramLabel = "DTYPE",
        description = "Datatype of every float tensor: float32, float16, bfloat16, fxpN_P or custom[NAME]BITS "
            + "(see 'byodt dtypes'), or a block datatype (mxfp8e4m3, mxfp8e5m2, mxfp6e3m2, mxfp6e2m3, mxfp4, mxint8, nvfp4, "
            + "block[ELEMENT,SIZE,SCALE,RULE[,tensor]]) for the dot products of MatMul, Gemm and Conv, the rest in --vector-dtype. Inputs and outputs stay float32. On a P target fxp16_P packs 2 (riscv32p) or 4 "
            + "(riscv64p) values per register by default; fxp16_PxLANES (x2, x4) chooses the lanes. Default: ${DEFAULT-VALUE}.")
    String dtype;

    @Option(names = "--vector-dtype", paramLabel = "DTYPE",
        description = "With a block datatype in --dtype or --dtype-map (mxfp8e4m3, ..., nvfp4, see 'byodt dtypes'): the scalar datatype of "
            + "everything but their dot products of MatMul, Gemm and Conv (activations, pooling, normalization, residual adds, "
            + "biases), as the OCP MX spec's vector operations. Default: bfloat16.")
    String vectorDtype;

    @Option(names = "--dtype-map", paramLabel = "PATTERN=DTYPE,...",
        description = "Per-node datatypes: node or output tensor names (globs with * and ?) mapped to datatypes, "
            + "e.g. 'conv1=fxp16_13,fc*=custom[posit]16' or 'fc*=mxfp4' (a block datatype: the dot products of that MatMul, Gemm or Conv "
            + "in blocks, the rest of the node in --vector-dtype); the first match wins, --dtype elsewhere.")
    String dtypeMap;

    @Option(names = "--accumulate", paramLabel = "MODE",
        description = "How sums accumulate: dtype (round every add and multiply), float32 (products and sums in float32, "
            + "round once), exact (the datatype's wide accumulator, round once), int:W[:wrap|:saturate] (fixed point: exact products "
            + "summed in a W-bit two's-complement register that wraps (the default) or saturates at every add, round once). Default: dtype. "
            + "With a block datatype as --dtype, how each dot product adds the float32 results of its blocks: float32 (the default), dtype "
            + "(in --vector-dtype) or exact (every block's exact sum added exactly, rounded once to float32).")
    String accumulate;

    @Option(names = "--fallback", paramLabel = "float32",
        description = "Compute operations the datatype has no lowering for in float32 (converting to float32 and back), "
            + "and say which; without it a missing lowering is an error.")
    String fallback;

    @Option(names = "--overflow", paramLabel = "saturate|wrap", description = "Fixed point: saturate (default) or wrap around on overflow.")
    String overflow;

    @Option(names = "--rounding", paramLabel = "MODE",
        description = "How the datatype rounds every result: nearest (ties to even, the default), nearest-away, toward-zero, "
            + "up, down, odd or stochastic; fixed point also truncate ('byodt dtypes' lists each datatype's modes).")
    String rounding;

    @Mixin
    StochasticRoundingOptions stochastic;

    @Mixin
    MultiplyAddOption multiplyAdd;

    @Option(names = "--no-inline-lib",
        description = "Keep datatype library functions out of line, so the code shows every call (with --emit llvm), "
            + "as TVM's op-by-op calls.")
    boolean noInlineLibraries;

    @Option(names = "--bind", paramLabel = "NAME=FILE",
        description = "Fix a graph input to the tensor in FILE (an onnx.TensorProto) at compile time: it stops being "
            + "an input, and shapes, axes or indices computed from it fold away (repeatable).")
    List<String> bindings = List.of();

    Graph load() { return OnnxLoader.load(model, shapeOverrides(), boundInputs()); }

    Map<String, long[]> shapeOverrides() { return shapes.parse(); }

    Map<String, Tensor> boundInputs() {
        Map<String, Tensor> bound = new LinkedHashMap<>();
        for (String spec : bindings) {
            int eq = spec.indexOf('=');
            if (eq <= 0 || eq == spec.length() - 1) throw new UsageException("--bind " + spec + ": expected NAME=FILE");
            bound.put(spec.substring(0, eq), TensorProtos.read(Path.of(spec.substring(eq + 1))).tensor());
        }
        return bound;
    }

    CompileOptions compileOptions() {
        Target chosen = target();
        DatatypeChoice datatypes = datatypeChoice();
        try {
            chosen.check(datatypes);
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
        chosen.extension().flatMap(extension -> extension.coverageNote(chosen, datatypes))
            .ifPresent(note -> System.err.println("byodt: " + note));
        return multiplyAdd.applyTo(CompileOptions.host()).withTarget(chosen).withDatatypes(datatypes)
            .withInlineLibraries(!noInlineLibraries).withBlocks(blocks());
    }

    private static final String DEFAULT_VECTOR_DTYPE = "bfloat16";

    /** The block datatype --dtype names, or empty for a scalar one; a malformed one is a usage error. */
    Optional<BlockDatatypeName> block() {
        try {
            return plugins.registry().parseBlock(dtype);
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /**
     * The block datatypes of --dtype and --dtype-map, and --accumulate's mode for the sum across blocks. One that
     * models cannot compute in yet, or one combined with options it does not take yet, is a usage error.
     */
    BlockChoice blocks() {
        Optional<BlockDatatypeName> everywhere = block();
        BlockChoice choice;
        try {
            // BlockChoice reads its entries' block datatypes without the registry: a plug-in's names spelled out.
            List<DatatypeChoice.Override> map = DatatypeChoice.parseOverrides(dtypeMap).stream()
                .map(o -> new DatatypeChoice.Override(o.pattern(), plugins.registry().spelledOut(o.datatype()))).toList();
            choice = new BlockChoice(everywhere, map,
                everywhere.isPresent() ? BlockChoice.Accumulation.parse(accumulation()) : BlockChoice.Accumulation.FLOAT32);
            for (BlockDatatypeName name : choice.blockNames()) {
                BlockFormat format = BlockFormat.resolve(name, plugins.registry());
                if (rounding != null) format = format.withElementRounding(rounding);
                BlockDots.unsupported(format.withRandomBits(stochastic.bitsOrDefault(), stochastic.seed))
                    .ifPresent(problem -> { throw new UsageException(problem); });
            }
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
        if (!choice.any()) {
            if (vectorDtype != null) {
                throw new UsageException("--vector-dtype " + vectorDtype + " goes with a block datatype in --dtype or --dtype-map, not " + dtype);
            }
        } else if (fallback != null) {
            throw new UsageException(choice.blockNames().getFirst() + ": a block datatype runs without --fallback for now");
        }
        return choice;
    }

    /** --accumulate as given, or its default: float32 for a block datatype's dot products, else dtype. */
    String accumulation() { return accumulate != null ? accumulate : block().isPresent() ? BlockChoice.Accumulation.FLOAT32.optionName() : "dtype"; }

    /** The scalar datatype of every tensor: --dtype, or --vector-dtype under a block datatype. */
    private String scalarDtype() { return block().isPresent() ? vectorDtype() : dtype; }

    String vectorDtype() { return vectorDtype == null ? DEFAULT_VECTOR_DTYPE : vectorDtype; }

    /** --target with --mattr and --p-opcode; an unknown target is a usage error listing the known ones. */
    Target target() {
        Integer opcode = null;
        if (pOpcode != null) {
            try {
                opcode = Integer.decode(pOpcode);
            } catch (NumberFormatException e) {
                throw new UsageException("--p-opcode " + pOpcode + ": not a number (expected 0x77 or 0x7f)");
            }
        }
        try {
            return Targets.named(target, mattr, opcode);
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** The datatypes --dtype and --dtype-map name, resolved as compileOptions() resolves them. */
    List<DatatypeInstance> datatypeInstances() { return datatypeChoice().instances(); }

    /** The datatype options, every name resolved now: a malformed or unknown datatype is a usage error. */
    private DatatypeChoice datatypeChoice() {
        if (fallback != null && !fallback.equals("float32")) throw new UsageException("--fallback " + fallback + ": only float32 is available");
        Map<String, String> datatypeOptions = new LinkedHashMap<>();
        if (overflow != null) datatypeOptions.put("overflow", overflow);
        if (rounding != null) datatypeOptions.put("rounding", rounding);
        stochastic.requireStochastic(rounding);
        stochastic.addTo(datatypeOptions, rounding);
        // Loading the user's datatypes is not part of the try: a broken plug-in is an error in a file, not in usage.
        DatatypeChoice registered = DatatypeChoice.float32().withRegistry(plugins.registry());
        try {
            // Nodes mapped to a block datatype compute everything but their dot products in the vector datatype; under a
            // block --dtype, --accumulate is the blocks' and the vector datatype rounds every operation.
            List<DatatypeChoice.Override> overrides = DatatypeChoice.parseOverrides(dtypeMap).stream()
                .map(o -> plugins.registry().parseBlock(o.datatype()).isPresent() ? new DatatypeChoice.Override(o.pattern(), vectorDtype()) : o).toList();
            DatatypeChoice choice = registered.withDatatype(scalarDtype())
                .withOverrides(overrides)
                .withAccumulation(block().isPresent() ? AccumulationMode.DTYPE : AccumulationMode.parse(accumulation()))
                .withFallbackToFloat32(fallback != null)
                .withOptions(datatypeOptions)
                .withSeed(stochastic.seed);
            List<DatatypeInstance> instances = choice.instances();
            datatypeOptions.forEach((option, value) -> {
                if (instances.stream().noneMatch(i -> i.definition().options().containsKey(option))) {
                    throw new UsageException("--" + option + " " + value + ": datatype " + instances.getFirst()
                        + " has no such option ('byodt dtypes' lists each datatype's options)");
                }
            });
            return choice;
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** ", dtype-map conv1=fxp16_13, accumulate exact": the datatype options beyond --dtype that were given. */
    String describeDatatypeOptions() {
        StringBuilder text = new StringBuilder();
        if (blocks().any()) text.append(", vector-dtype ").append(vectorDtype());
        if (dtypeMap != null) text.append(", dtype-map ").append(dtypeMap);
        if (accumulate != null) text.append(", accumulate ").append(accumulate);
        if (fallback != null) text.append(", fallback ").append(fallback);
        if (overflow != null) text.append(", overflow ").append(overflow);
        if (rounding != null) text.append(", rounding ").append(rounding);
        text.append(stochastic.describe(rounding));
        return text.toString();
    }

    /** Tells the user which operations were computed in float32 (--fallback float32). */
    static void reportFallbacks(CompiledModule module) {
        for (String line : module.fallbacks()) System.err.println("byodt: computed in float32 for want of a lowering: " + line);
    }
}
