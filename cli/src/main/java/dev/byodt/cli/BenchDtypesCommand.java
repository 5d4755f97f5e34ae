package dev.byodt.cli;

import dev.byodt.cli.microbench.ChainTimer;
import dev.byodt.cli.microbench.MicroGraphs;
import dev.byodt.cli.microbench.PerformanceTargets;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.block.BlockDots;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BlockChoice;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeName;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;

@Command(name = "bench-dtypes", mixinStandardHelpOptions = true,
    description = {"Measure the arithmetic of each datatype as byodt compiles it, side by side with float32: element-wise "
        + "add and multiply over float tensors, a square matrix multiply and a 3x3 convolution with constant weights "
        + "(ResNet-18's 64-channel one by default), on one thread of the host, in ns per element (per multiply-add for "
        + "the matrix product and the convolution) and as a ratio to float32.",
        "Each datatype but the convolution is also compiled as with --no-inline-lib (every library function an out-of-line call, so "
        + "nothing vectorizes), the scalar-library baseline, and the speedup of the inlined code over it is shown.",
        "A block datatype (mxint8, mxfp8e4m3, ..., nvfp4, block[...]) is timed on the matrix product and the convolution only, "
        + "its dot products in blocks as run computes them (both operands quantized in every node) and the rest in bfloat16."})
final class BenchDtypesCommand implements Callable<Integer> {
    /** Nodes added to a chain of one to measure element-wise operations; more amortize timer noise. */
    private static final int ELEMENTWISE_EXTRA_NODES = 8;
    /** A matrix product already does n^3 operations against the conversions' 2 n^2, and a convolution more. */
    private static final int MATMUL_EXTRA_NODES = 1;
    /** The convolution's 3x3 window. */
    private static final long CONV_TAPS = 9;
    /** A block datatype's operations outside dot products, as run's default --vector-dtype. */
    private static final String VECTOR_DATATYPE = "bfloat16";

    /** Commas between datatypes, not those inside a block datatype's brackets (block[custom[posit]8,32,e8m0,floor]). */
    @Option(names = "--dtypes", split = ",(?![^\\[]*\\])", splitSynopsisLabel = ",", paramLabel = "DTYPE",
        defaultValue = "float16,bfloat16,custom[fp8e4m3]8,custom[fp8e5m2]8,fxp8_4,fxp16_8,fxp32_16,custom[posit]8,"
            + "custom[posit]16,custom[posit]32,mxint8,mxfp8e4m3,mxfp4,nvfp4",
        description = "Datatypes to measure besides float32, which is always measured (default: ${DEFAULT-VALUE}).")
    List<String> datatypes;

    @Option(names = "--elements", defaultValue = "1048576", paramLabel = "N",
        description = "Elements of the add and multiply tensors (default: ${DEFAULT-VALUE}).")
    long elements;

    @Option(names = "--matrix", defaultValue = "256", paramLabel = "N",
        description = "Size of the square matrices multiplied (default: ${DEFAULT-VALUE}).")
    long matrix;

    @Option(names = "--conv-channels", defaultValue = "64", paramLabel = "C",
        description = "Input and output channels of the 3x3 convolution, padded to keep its maps' size (default: ${DEFAULT-VALUE}).")
    long convChannels;

    @Option(names = "--conv-size", defaultValue = "56", paramLabel = "N",
        description = "Height and width of the convolution's maps (default: ${DEFAULT-VALUE}: ResNet-18's first 3x3 "
            + "convolutions with 64 channels).")
    long convSize;

    @Option(names = "--accumulate", paramLabel = "MODE",
        description = "How the datatypes' matrix products and convolutions accumulate, as run takes it: dtype, float32, exact, "
            + "int:W[:wrap|:saturate], fused:F=N,G=N[,...] or a fused preset; a block datatype's blocks as run adds them "
            + "(float32 or dtype); float32 itself always rounds as it goes (default: dtype, and float32 for block datatypes, "
            + "as run).")
    String accumulate;

    @Option(names = "--seconds", defaultValue = "0.5", paramLabel = "S",
        description = "Measuring time per compiled graph; the best of its runs counts (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Mixin
    MultiplyAddOption multiplyAdd;

    @Mixin
    CommonOptions common;

    /**
     * One measured operation: its name, the chain of it at a depth, the inputs, operations per node, and whether
     * the scalar library is timed too (not for the convolution: called out of line it takes seconds a run).
     */
    private record Benchmark(String name, IntFunction<Graph> chain, int extraNodes, long operationsPerNode, List<Tensor> inputs,
                             boolean againstScalarLibrary) {
        /** Whether a block datatype computes it in blocks: the dot products. */
        boolean inBlocks() { return name.equals("matmul") || name.equals("conv"); }
    }

    /** ns per operation inlined, and as the scalar library (empty for float32, which calls no library). */
    private record Cost(double inlined, Optional<Double> scalarLibrary) {
        Optional<Double> speedup() { return scalarLibrary.map(s -> s / inlined); }
    }

    @Override
    public Integer call() {
        if (elements <= 0 || matrix <= 0 || convChannels <= 0 || convSize <= 0) {
            throw new UsageException("--elements, --matrix, --conv-channels and --conv-size must be positive");
        }
        if (seconds < 0) throw new UsageException("--seconds must not be negative");
        List<String> measured = new ArrayList<>(List.of("float32"));
        for (String d : datatypes) if (!measured.contains(d)) measured.add(d);
        measured.forEach(this::choice);

        List<Benchmark> benchmarks = benchmarks();
        printHeader();
        ChainTimer timer = new ChainTimer(seconds);
        Map<String, Map<String, Cost>> costs = new LinkedHashMap<>();
        for (String datatype : measured) {
            Map<String, Cost> row = new LinkedHashMap<>();
            for (Benchmark b : benchmarks) {
                try {
                    measure(timer, b, datatype).ifPresent(c -> row.put(b.name(), c));
                } catch (ByodtException e) {
                    System.err.println("byodt: " + datatype + " " + b.name() + ": " + e.getMessage());
                }
            }
            costs.put(datatype, row);
            printRow(datatype, row, costs.get("float32"), benchmarks);
        }
        System.out.printf("load average (1 min) at the end: %.2f%n", loadAverage());
        printTargets(costs);
        return 0;
    }

    private List<Benchmark> benchmarks() {
        Random random = new Random(1);
        long[] vector = {elements};
        long[] square = {matrix, matrix};
        long terms = convChannels * CONV_TAPS;
        Tensor weights = uniform(random, new long[] {convChannels, convChannels, 3, 3}, 0.5 / terms, 1.5 / terms);
        // Operands that keep every chain in range: sums walk around 1, products stay near 1, and each entry
        // of a matrix product or a convolution sums n terms of about 1/n, so no datatype meets overflow, NaN or
        // subnormals.
        return List.of(
            new Benchmark("add", d -> MicroGraphs.elementwiseChain("Add", elements, d), ELEMENTWISE_EXTRA_NODES, elements,
                List.of(uniform(random, vector, 0.5, 1.5), uniform(random, vector, -0.5, 0.5)), true),
            new Benchmark("mul", d -> MicroGraphs.elementwiseChain("Mul", elements, d), ELEMENTWISE_EXTRA_NODES, elements,
                List.of(uniform(random, vector, 0.5, 1.5), uniform(random, vector, 0.9, 1.1)), true),
            new Benchmark("matmul", d -> MicroGraphs.matMulChain(matrix, d), MATMUL_EXTRA_NODES, matrix * matrix * matrix,
                List.of(uniform(random, square, 0.5, 1.5), uniform(random, square, 0.5 / matrix, 1.5 / matrix)), true),
            new Benchmark("conv", d -> MicroGraphs.convChain(convChannels, convSize, weights, d), MATMUL_EXTRA_NODES,
                terms * convChannels * convSize * convSize,
                List.of(uniform(random, new long[] {1, convChannels, convSize, convSize}, 0.5, 1.5)), false));
    }

    /** The cost of {@code b} in {@code datatype}, or empty for a block datatype's element-wise operations (they are bfloat16's). */
    private Optional<Cost> measure(ChainTimer timer, Benchmark b, String datatype) {
        Optional<BlockDatatypeName> block = DatatypeName.parseBlock(datatype);
        if (block.isPresent()) {
            if (!b.inBlocks()) return Optional.empty();
            CompileOptions options = unfused().withDatatypes(choice(datatype)).withBlocks(blocks(block.get()));
            return Optional.of(new Cost(timer.nanosPerOperation(b.chain(), b.extraNodes(), b.operationsPerNode(), options, b.inputs()),
                Optional.empty()));
        }
        CompileOptions options = unfused().withDatatypes(choice(datatype));
        double inlined = timer.nanosPerOperation(b.chain(), b.extraNodes(), b.operationsPerNode(), options, b.inputs());
        Optional<Double> scalar = datatype.equals("float32") || !b.againstScalarLibrary() ? Optional.empty() : Optional.of(
            timer.nanosPerOperation(b.chain(), b.extraNodes(), b.operationsPerNode(), options.withInlineLibraries(false), b.inputs()));
        return Optional.of(new Cost(inlined, scalar));
    }

    /**
     * The host's options with every node its own kernel: float32 would otherwise compute a chain of adds in one
     * fused loop, one pass over memory for all of them, where an emulated datatype's nodes each take a pass, and
     * the ratio would compare a register's add with a memory pass.
     */
    private CompileOptions unfused() {
        return multiplyAdd.applyTo(CompileOptions.host()).withFusedChains(false);
    }

    /** The scalar datatypes of {@code datatype}'s graphs: itself, or bfloat16 (run's --vector-dtype) for a block datatype. */
    private DatatypeChoice choice(String datatype) {
        try {
            Optional<BlockDatatypeName> block = DatatypeName.parseBlock(datatype);
            if (block.isPresent()) {
                blocks(block.get());
                return DatatypeChoice.float32().withDatatype(VECTOR_DATATYPE);
            }
            DatatypeChoice choice = DatatypeChoice.float32().withDatatype(datatype);
            if (!datatype.equals("float32")) choice = choice.withAccumulation(AccumulationMode.parse(accumulate == null ? "dtype" : accumulate));
            choice.instances();
            return choice;
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** {@code block} in every MatMul and Conv, its blocks added as --accumulate says (float32 by default); one models cannot compute in is an error. */
    private BlockChoice blocks(BlockDatatypeName block) {
        BlockDots.unsupported(BlockFormat.resolve(block, DatatypeRegistry.withBuiltIns())).ifPresent(problem -> { throw new UsageException(problem); });
        return new BlockChoice(Optional.of(block), List.of(),
            accumulate == null ? BlockChoice.Accumulation.FLOAT32 : BlockChoice.Accumulation.parse(accumulate));
    }

    private void printHeader() {
        System.out.printf("Datatype microbenchmark: host, one thread, %d cores, load average (1 min) at the start: %.2f%n",
            Runtime.getRuntime().availableProcessors(), loadAverage());
        System.out.printf("add, mul: %d elements, ns per element; matmul: %dx%dx%d, conv: 3x3, %d to %d channels, %dx%d, pads 1,%n",
            elements, matrix, matrix, matrix, convChannels, convChannels, convSize, convSize);
        System.out.printf("constant weights (the scalar library not timed): ns per multiply-add (accumulate %s, %s).%n",
            accumulate == null ? "dtype, block datatypes float32" : accumulate, MultiplyAddOption.describeFloat32(unfused()));
        System.out.println("Inputs and outputs are float32, so each figure is the cost of one more operation: a chain of nodes");
        System.out.printf("op(...op(x, y)..., y) of depth 1+K (K = %d for add and mul, %d for matmul and conv) timed against depth 1, the%n",
            ELEMENTWISE_EXTRA_NODES, MATMUL_EXTRA_NODES);
        System.out.println("difference divided by K: the conversions at the inputs and output cancel. Every node is its own kernel");
        System.out.println("(float32's element-wise chains unfused, as an emulated datatype's are). Each time is the thread's");
        System.out.printf("CPU time in the best of repeated runs over %.2f s (waiting for a core on a loaded machine does not%n", seconds);
        System.out.println("count). 'x f32' is the ratio to float32; 'lib' the same graph compiled with");
        System.out.println("--no-inline-lib (library functions called out of line, nothing vectorized), 'speedup' lib / inlined.");
        StringBuilder header = new StringBuilder(String.format("%-18s", "datatype"));
        for (String op : List.of("add", "mul", "matmul", "conv")) {
            header.append(String.format("  %8s %6s %8s %7s", op + " ns", "x f32", "lib ns", "speedup"));
        }
        System.out.println(header);
    }

    private static void printRow(String datatype, Map<String, Cost> row, Map<String, Cost> float32, List<Benchmark> benchmarks) {
        StringBuilder line = new StringBuilder(String.format("%-18s", datatype));
        for (Benchmark b : benchmarks) {
            Cost c = row.get(b.name());
            Cost reference = float32.get(b.name());
            if (c == null) {
                // A block datatype's element-wise operations are not its own (they compute in bfloat16).
                String missing = DatatypeName.parseBlock(datatype).isPresent() && !b.inBlocks() ? "-" : "n/a";
                line.append(String.format("  %8s %6s %8s %7s", missing, "", "", ""));
                continue;
            }
            line.append(String.format("  %8.3f %6s %8s %7s", c.inlined(),
                reference == null ? "-" : String.format("%.2f", c.inlined() / reference.inlined()),
                c.scalarLibrary().map(s -> String.format("%.3f", s)).orElse("-"),
                c.speedup().map(s -> String.format("%.1fx", s)).orElse("-")));
        }
        System.out.println(line);
    }

    /**
     * The datatype's time over float32's, or empty when either is missing or not above zero: each is the difference
     * of two timed chains, which timer noise can take to zero or below when runs are as short as --seconds 0 makes
     * them, and a ratio of those would say nothing (or call a target met).
     */
    private static OptionalDouble ratioToFloat32(Cost c, Cost float32) {
        if (c == null || float32 == null || c.inlined() <= 0 || float32.inlined() <= 0) return OptionalDouble.empty();
        return OptionalDouble.of(c.inlined() / float32.inlined());
    }

    /** Says for each datatype the issue sets a bound for whether its add and mul meet it, and which speedups fall short. */
    private static void printTargets(Map<String, Map<String, Cost>> costs) {
        Map<String, Cost> float32 = costs.get("float32");
        System.out.println("Speed targets:");
        costs.forEach((datatype, row) -> PerformanceTargets.maxRatioToFloat32(datatype).ifPresent(bound -> {
            StringBuilder line = new StringBuilder(String.format("  %-18s add and mul within %.1fx of float32:", datatype, bound));
            boolean met = true;
            for (String op : List.of("add", "mul")) {
                OptionalDouble ratio = ratioToFloat32(row.get(op), float32.get(op));
                if (ratio.isEmpty()) {
                    line.append(" ").append(op).append(" not measured");
                    met = false;
                    continue;
                }
                met &= ratio.getAsDouble() <= bound;
                line.append(String.format(" %s %.2fx", op, ratio.getAsDouble()));
            }
            System.out.println(line.append(met ? "  met" : "  MISSED"));
        }));
        costs.forEach((datatype, row) -> PerformanceTargets.maxMatMulRatioToFloat32(datatype).ifPresent(bound -> {
            OptionalDouble ratio = ratioToFloat32(row.get("matmul"), float32.get("matmul"));
            String line = String.format("  %-18s matmul within %.1fx of float32:", datatype, bound);
            if (ratio.isEmpty()) {
                System.out.println(line + " not measured  MISSED");
                return;
            }
            System.out.println(line + String.format(" %.2fx  %s", ratio.getAsDouble(), ratio.getAsDouble() <= bound ? "met" : "MISSED"));
        }));
        List<String> slow = new ArrayList<>(), slowWithoutTarget = new ArrayList<>();
        costs.forEach((datatype, row) -> row.forEach((op, c) -> c.speedup()
            .filter(s -> s < PerformanceTargets.MIN_SPEEDUP_OVER_SCALAR_LIBRARY)
            .ifPresent(s -> (PerformanceTargets.hasSpeedupTarget(datatype, op) ? slow : slowWithoutTarget)
                .add(String.format("%s %s %.1fx", datatype, op, s)))));
        System.out.printf("  their add and mul inlined at least %.0fx faster than the scalar library: %s%n",
            PerformanceTargets.MIN_SPEEDUP_OVER_SCALAR_LIBRARY, slow.isEmpty() ? "met" : "MISSED by " + String.join(", ", slow));
        if (!slowWithoutTarget.isEmpty()) {
            System.out.println("  under that speedup, without a target: " + String.join(", ", slowWithoutTarget));
        }
    }

    private static Tensor uniform(Random random, long[] shape, double low, double high) {
        Tensor t = Tensor.zeros(ElementType.FLOAT32, shape);
        for (long i = 0; i < t.elementCount(); i++) t.setFloat(i, (float) (low + random.nextDouble() * (high - low)));
        return t;
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
