package dev.byodt.cli;

import dev.byodt.cli.compare.Baseline;
import dev.byodt.cli.compare.DatatypeRun;
import dev.byodt.cli.compare.Executor;
import dev.byodt.cli.compare.Gate;
import dev.byodt.cli.report.ComparisonReport;
import dev.byodt.cli.report.ModelHash;
import dev.byodt.cli.report.OutputFigures;
import dev.byodt.cli.report.ReportEntry;
import dev.byodt.cli.report.ReportTable;
import dev.byodt.cli.report.RunSetup;
import dev.byodt.cli.sweep.DatatypeSpec;
import dev.byodt.cli.sweep.Shard;
import dev.byodt.cli.sweep.SweepOutputs;
import dev.byodt.cli.sweep.SweepPlan;
import dev.byodt.cli.sweep.SweepPoint;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.block.BlockDots;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BlockChoice;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.data.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "sweep", mixinStandardHelpOptions = true, sortOptions = false,
    subcommands = SweepMergeCommand.class,
    description = {"Compare a family of datatypes against float32 on one data set: every datatype of --dtypes crossed with "
        + "every --accumulate and --rounding value, each compiled once, the float32 baseline computed once.",
        "",
        "Writes into --out: results.csv, results.json, chart-bits.png/.svg (accuracy and SQNR against bit width, one line "
            + "per family), chart-fraction-bits.png/.svg (fixed point against fraction bits) and report.html (table and "
            + "charts in one file).",
        "A combination a datatype does not support (float32 with --accumulate exact, bfloat16 with int:24) is left out with "
            + "its reason, and --rounding applies "
            + "only to datatypes that have that option, each with the modes it takes (byodt dtypes lists them). A configuration that fails to compile or run is "
            + "reported in the results as failed, with its reason, and the sweep goes on; the command then exits 1.",
        ""},
    footer = {"", "Examples:",
        "  byodt sweep models/lenet5-fashion.onnx --dtypes 'fxp16_8..15,bfloat16,float16,custom[fp8e4m3]8' --out sweep/",
        "  byodt sweep models/lenet5-fashion.onnx --dtypes 'custom[posit]8..16' --accumulate dtype,exact --out sweep/ --shard 1/4",
        "  byodt sweep models/lenet5-fashion.onnx --dtypes 'fxp16_8,bfloat16,custom[fp8e4m3]8' --accumulate float32,exact,fused:hopper-fp8,int:24 --out sweep/",
        "  byodt sweep merge shard1/ shard2/ shard3/ shard4/ --out sweep/"})
final class SweepCommand implements Callable<Integer> {
    /** What a report shows for an option the datatype does not have. */
    private static final String NOT_APPLICABLE = "-";

    @Parameters(index = "0", arity = "0..1", paramLabel = "MODEL", description = "The ONNX model file.")
    Path model;

    @Mixin
    ShapeOptions shapes;

    @Mixin
    PluginOptions plugins;

    @Option(names = "--dtypes", paramLabel = "SPEC",
        description = "Datatypes as --dtype takes them, comma-separated, with ranges and brace groups: 'fxp16_8..15', "
            + "'custom[posit]6..16', 'custom[minifloat_e{2..5}]8', 'custom[posit_es{0,1,3}]8', 'bfloat16,float16,custom[fp8e4m3]8', "
            + "and the block datatypes 'mxint8,mxfp{8e4m3,8e5m2,6e3m2,6e2m3,4},nvfp4' (their other operations in --vector-dtype).")
    String dtypes;

    @Option(names = "--vector-dtype", defaultValue = "bfloat16", paramLabel = "DTYPE",
        description = "For the block datatypes among --dtypes (mxfp8e4m3, ..., nvfp4): the scalar datatype of everything "
            + "but their dot products, as run's --vector-dtype. Default: ${DEFAULT-VALUE}.")
    String vectorDtype;

    @Option(names = "--accumulate", paramLabel = "MODE[,MODE...]",
        description = "Accumulation modes to cross with, as --accumulate takes them: dtype, float32, exact, int:W[:wrap|:saturate], "
            + "fused:F=<bits>,G=<group>[,rounding=rz|rne], fused:hopper-fp8, fused:volta-fp16; for the block datatypes, how their dot "
            + "products add the results of their blocks: float32 or dtype (in --vector-dtype). Default: dtype, float32 for the block datatypes.")
    String accumulate;

    @Option(names = "--rounding", defaultValue = "nearest", paramLabel = "MODE[,MODE...]",
        description = "Rounding modes to cross with, as --rounding takes them (nearest, nearest-away, toward-zero, up, down, "
            + "odd, stochastic; fixed point also truncate), each with the datatypes that take it. Default: ${DEFAULT-VALUE}.")
    String rounding;

    @Mixin
    StochasticRoundingOptions stochastic;

    @Mixin
    MultiplyAddOption multiplyAdd;

    @Option(names = "--overflow", paramLabel = "saturate|wrap", description = "Fixed point: saturate (default) or wrap around.")
    String overflow;

    @Option(names = "--fallback", paramLabel = "float32", description = "Compute operations a datatype has no lowering for in float32.")
    String fallback;

    @Option(names = "--data", paramLabel = "SOURCE", description = DataOptions.DATA_DESCRIPTION)
    String data;

    @Mixin
    DataOptions dataOptions;

    @Mixin
    ClassAxisOption classAxis;

    @Option(names = "--reference", defaultValue = Baseline.BYODT, paramLabel = "byodt|onnxruntime",
        description = "Where the float32 baseline comes from. Default: ${DEFAULT-VALUE}.")
    String reference;

    @Option(names = "--out", paramLabel = "DIR", description = "Folder to write the results, charts and report into.")
    Path out;

    @Option(names = "--shard", defaultValue = "1/1", paramLabel = "i/n",
        description = "Run only shard i of n (configurations i, i+n, i+2n, ... of the sweep); join them with 'sweep merge'.")
    String shard;

    @Mixin
    SweepGateOptions gateOptions;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (model == null) throw new UsageException("sweep needs a MODEL (or the subcommand 'merge')");
        if (dtypes == null) throw new UsageException("sweep needs --dtypes");
        if (out == null) throw new UsageException("sweep needs --out DIR");
        if (fallback != null && !fallback.equals("float32")) throw new UsageException("--fallback " + fallback + ": only float32 is available");
        if (!reference.equals(Baseline.BYODT) && !reference.equals(Baseline.ONNX_RUNTIME)) {
            throw new UsageException("--reference " + reference + ": expected byodt or onnxruntime");
        }
        dataOptions.check();
        Gate gate = gateOptions.gate();
        Set<String> gated = gateOptions.gated(plugins.registry()::parseBlock);
        Optional<Integer> apart = plugins.runApartIfUntrusted(spec, this::namedDatatypes);
        if (apart.isPresent()) return apart.get();
        List<SweepPoint> all;
        Shard part;
        try {
            part = Shard.parse(shard);
            stochastic.requireStochastic(rounding);
            all = plan(DatatypeSpec.expand(dtypes, plugins.registry()::parseBlock), SweepPlan.accumulations(accumulate == null ? "dtype" : accumulate),
                SweepPlan.choices("--rounding", rounding, roundingModes()));
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
        List<SweepPoint> mine = part.select(all);

        long start = System.nanoTime();
        Executor host = Executor.host();
        DataOptions.Loaded loaded = dataOptions.load(data, model, shapes.parse(), Map.of(), host);
        Graph graph = loaded.graph();
        DataSource source = loaded.data();
        CompileOptions float32 = multiplyAdd.applyTo(CompileOptions.host());
        Baseline baseline = Baseline.compute(graph, model, float32, reference, source, classAxis.classAxis, host,
            ComparisonRun::warnFallback);
        List<ReportEntry> entries = new ArrayList<>();
        for (SweepPoint point : mine) entries.add(measure(graph, baseline, point, host));
        double seconds = (System.nanoTime() - start) / 1e9;

        RunSetup setup = new RunSetup(model.toString(), ModelHash.sha256(model), MultiplyAddOption.describeTarget(host.describe(), float32),
            multiplyAdd.mode().optionName(), Version.get(), source.description(),
            baseline.description());
        ComparisonReport report = new ComparisonReport(setup, all.size(), part.equals(Shard.WHOLE) ? null : part.toString(), entries);
        List<Path> written = SweepOutputs.write(report, out);

        System.out.print(ReportTable.render(report));
        System.out.printf("%n%d configurations%s on %d items in %.1f s (%d cores); wrote %s%n", mine.size(),
            part.equals(Shard.WHOLE) ? "" : " (shard " + part + " of " + all.size() + ")", source.size(), seconds,
            Runtime.getRuntime().availableProcessors(), written.stream().map(p -> p.getFileName().toString()).toList() + " into " + out);
        return verdict(entries, gate, gated);
    }

    /**
     * Every datatype crossed with the accumulation modes it supports and, when it has a rounding option, with
     * every rounding mode; numbered in that order. A mode a datatype does not support is left out, saying why.
     * An unknown or malformed datatype is an error here, before any work.
     */
    private List<SweepPoint> plan(List<String> names, List<String> accumulations, List<String> roundings) {
        List<SweepPoint> points = new ArrayList<>();
        List<String> leftOut = new ArrayList<>();
        for (String name : names) {
            DatatypeInstance instance = plugins.registry().instance(scalar(name), options("nearest"));
            List<String> applicable = applicableRoundings(name, instance, roundings, leftOut).stream()
                .filter(r -> takes(name, r, leftOut)).toList();
            boolean block = block(name).isPresent();
            for (String acc : accumulate != null ? accumulations : List.of(block ? BlockChoice.Accumulation.FLOAT32.optionName() : "dtype")) {
                try {
                    if (block) BlockChoice.Accumulation.parse(acc);
                    else instance.requireAccumulation(AccumulationMode.parse(acc));
                } catch (ByodtException e) {
                    leftOut.add(e.getMessage());
                    continue;
                }
                for (String r : applicable) points.add(new SweepPoint(points.size(), name, acc, r));
            }
        }
        leftOut.forEach(reason -> System.err.println("byodt: left out: " + reason));
        if (points.isEmpty()) {
            throw new ByodtException("--dtypes '" + dtypes + "' with --accumulate " + (accumulate == null ? "its default" : accumulate)
                + " and --rounding " + rounding + " leaves no configuration to run");
        }
        return points;
    }

    /** Every --rounding mode some registered datatype takes. */
    private Set<String> roundingModes() {
        Set<String> modes = new LinkedHashSet<>();
        for (DatatypeDefinition d : plugins.registry().definitions()) {
            Optional.ofNullable(d.options().get("rounding")).ifPresent(o -> modes.addAll(o.values()));
        }
        return modes;
    }

    /**
     * The modes of {@code roundings} the datatype takes ({@link #NOT_APPLICABLE} alone for one without the option),
     * each other one noted in {@code leftOut} with the reason.
     */
    private static List<String> applicableRoundings(String name, DatatypeInstance instance, List<String> roundings, List<String> leftOut) {
        DatatypeDefinition.Option option = instance.definition().options().get("rounding");
        if (option == null) return List.of(NOT_APPLICABLE);
        List<String> applicable = new ArrayList<>();
        for (String r : roundings) {
            if (option.values().contains(r)) applicable.add(r);
            else leftOut.add("datatype " + name + ": --rounding " + r + " is not one of " + option.values());
        }
        return applicable;
    }

    /** Whether the datatype {@code name} takes --rounding {@code r} at its width; if not, the reason goes to {@code leftOut}. */
    private boolean takes(String name, String r, List<String> leftOut) {
        if (r.equals(NOT_APPLICABLE)) return true;
        try {
            plugins.registry().instance(scalar(name), options(r));
            return true;
        } catch (ByodtException e) {
            leftOut.add(e.getMessage());
            return false;
        }
    }

    /**
     * The block datatype {@code name} names, or empty for a scalar one; one models cannot compute in yet is an
     * error (a usage error while planning).
     */
    private Optional<BlockDatatypeName> block(String name) {
        Optional<BlockDatatypeName> block = plugins.registry().parseBlock(name);
        block.ifPresent(b -> BlockDots.unsupported(BlockFormat.resolve(b, plugins.registry())).ifPresent(problem -> {
            throw new ByodtException(problem);
        }));
        return block;
    }

    /** The scalar datatype of a configuration: the name, or --vector-dtype for a block datatype. */
    private String scalar(String name) { return block(name).isPresent() ? vectorDtype : name; }

    /** The datatypes --dtypes names, or none when it is malformed: the plan then reports that as a usage error. */
    private List<DatatypeInstance> namedDatatypes() {
        try {
            return DatatypeSpec.expand(dtypes, plugins.registry()::parseBlock).stream().map(name -> plugins.registry().instance(scalar(name), options("nearest"))).toList();
        } catch (ByodtException e) {
            return List.of();
        }
    }

    private Map<String, String> options(String roundingMode) {
        Map<String, String> options = new LinkedHashMap<>();
        if (overflow != null) options.put("overflow", overflow);
        if (!roundingMode.equals(NOT_APPLICABLE)) options.put("rounding", roundingMode);
        stochastic.addTo(options, roundingMode);
        return options;
    }

    private ReportEntry measure(Graph graph, Baseline baseline, SweepPoint point, Executor executor) {
        Map<String, String> options = options(point.rounding());
        String overflowShown = NOT_APPLICABLE;
        try {
            Optional<BlockDatatypeName> block = block(point.dtype());
            // A block datatype's --accumulate is the sum across its blocks; its vector datatype rounds every operation.
            DatatypeChoice choice = DatatypeChoice.float32().withRegistry(plugins.registry()).withDatatype(scalar(point.dtype()))
                .withAccumulation(block.isPresent() ? AccumulationMode.DTYPE : AccumulationMode.parse(point.accumulate()))
                .withFallbackToFloat32(fallback != null).withOptions(options).withSeed(stochastic.seed);
            overflowShown = Optional.ofNullable(choice.instances().get(0).options().get("overflow")).orElse(NOT_APPLICABLE);
            String label = point.dtype() + " " + point.accumulate() + (point.rounding().equals(NOT_APPLICABLE) ? "" : " " + point.rounding());
            CompileOptions compileOptions = multiplyAdd.applyTo(CompileOptions.host()).withDatatypes(choice).withBlocks(block.isPresent()
                ? new BlockChoice(block, List.of(), BlockChoice.Accumulation.parse(point.accumulate())) : BlockChoice.none());
            List<OutputFigures> figures = DatatypeRun.measure(graph, compileOptions, baseline, label,
                executor, ComparisonRun::warnFallback);
            return new ReportEntry(point.index(), point.dtype(), point.accumulate(), point.rounding(), overflowShown, figures);
        } catch (ByodtException e) {
            System.err.println("byodt: " + point.dtype() + " (accumulate " + point.accumulate() + ") failed: " + e.getMessage());
            return ReportEntry.failed(point.index(), point.dtype(), point.accumulate(), point.rounding(), overflowShown, e.getMessage());
        }
    }

    static int verdict(List<ReportEntry> entries, Gate gate, Set<String> gated) {
        long failed = entries.stream().filter(e -> !e.succeeded()).count();
        List<String> violations = new ArrayList<>();
        for (ReportEntry e : entries) {
            if (e.succeeded() && (gated == null || gated.contains(e.dtype()))) gate.violation(e).ifPresent(violations::add);
        }
        if (!violations.isEmpty()) {
            System.err.println("byodt: accuracy gate failed for " + violations.size() + " configuration" + (violations.size() == 1 ? "" : "s")
                + ": " + String.join("; ", violations));
        }
        if (failed > 0) System.err.println("byodt: " + failed + " of " + entries.size() + " configurations failed (see the report)");
        return violations.isEmpty() && failed == 0 ? 0 : Main.MODEL_ERROR;
    }
}
