package dev.byodt.cli;

import dev.byodt.cli.chart.ChartFiles;
import dev.byodt.cli.chart.LayerChart;
import dev.byodt.cli.compare.Baseline;
import dev.byodt.cli.compare.Batches;
import dev.byodt.cli.compare.CompiledInference;
import dev.byodt.cli.compare.DatatypeRun;
import dev.byodt.cli.compare.Executor;
import dev.byodt.cli.compare.Gate;
import dev.byodt.cli.compare.LayerRun;
import dev.byodt.cli.compare.SaturationProbe;
import dev.byodt.cli.progress.Progress;
import dev.byodt.cli.report.ComparisonReport;
import dev.byodt.cli.report.LayerTable;
import dev.byodt.cli.report.ModelHash;
import dev.byodt.cli.report.OutputFigures;
import dev.byodt.cli.report.ReportCsv;
import dev.byodt.cli.report.ReportEntry;
import dev.byodt.cli.report.ReportJson;
import dev.byodt.cli.report.ReportTable;
import dev.byodt.cli.report.RunSetup;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.IntermediateOutputs;
import dev.byodt.runtime.AtomicFiles;
import dev.byodt.runtime.data.DataSource;
import org.jfree.chart.JFreeChart;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * `byodt run --dtype X`: float32 and X on the same data, compared per output (top-1 of both, agreement,
 * errors, SQNR, NaN and saturated counts), optionally per intermediate tensor (--per-layer), written as
 * JSON/CSV, and checked against an accuracy gate. Both run on the target's executor (the host's JIT, or
 * qemu-user), except a float32 reference from ONNX Runtime, which runs on the host. Every figure is computed
 * before any file is written, and each file is written atomically, so a failure leaves no half-written report.
 */
final class ComparisonRun {
    private final ModelOptions modelOptions;
    private final CompileOptions test;
    private final DataOptions dataOptions;
    private final String dataSpec;
    private final Integer classAxis;
    private final String reference;
    private final boolean perLayer;
    private final Path json, csv, chart;
    private final Gate gate;
    private final Executor executor;

    /**
     * @param test      how the datatype is compiled (the float32 reference: the same, with float32)
     * @param classAxis --class-axis, or null for the last axis of outputs of rank 3 or more
     */
    ComparisonRun(ModelOptions modelOptions, CompileOptions test, DataOptions dataOptions, String dataSpec, Integer classAxis, String reference,
                  boolean perLayer, Path json, Path csv, Path chart, Gate gate, Executor executor) {
        this.modelOptions = modelOptions;
        this.test = test;
        this.dataOptions = dataOptions;
        this.dataSpec = dataSpec;
        this.classAxis = classAxis;
        this.reference = reference;
        this.perLayer = perLayer;
        this.json = json;
        this.csv = csv;
        this.chart = chart;
        this.gate = gate;
        this.executor = executor;
    }

    static void warnFallback(String line) { System.err.println("byodt: computed in float32 for want of a lowering: " + line); }

    int call() {
        CompileOptions float32 = test.withDatatypes(DatatypeChoice.float32().withRegistry(test.datatypes().registry()))
            .withBlock(Optional.empty());
        DataOptions.Loaded loaded = dataOptions.load(dataSpec, modelOptions.model, modelOptions.shapeOverrides(),
            modelOptions.boundInputs(), executor);
        Graph graph = loaded.graph();
        DataSource data = loaded.data();

        List<OutputFigures> figures;
        String layerTable = null;
        Map<Path, byte[]> files = new LinkedHashMap<>();
        String referenceDescription;
        if (perLayer) {
            LayerRun layers = compareLayers(graph, data, float32, test, executor);
            figures = layers.outputs();
            layerTable = LayerTable.render(layers.layers());
            if (chart != null) files.put(chart, chartBytes(LayerChart.create(layers.layers(), modelOptions.dtype)));
            referenceDescription = "byodt float32";
        } else {
            Baseline baseline = Baseline.compute(graph, modelOptions.model, float32, reference, data, classAxis, executor,
                ComparisonRun::warnFallback);
            figures = DatatypeRun.measure(graph, test, baseline, modelOptions.dtype, executor, ComparisonRun::warnFallback);
            referenceDescription = baseline.description();
        }
        String datatype = modelOptions.dtype + (modelOptions.dtypeMap == null ? "" : " with --dtype-map " + modelOptions.dtypeMap)
            + (modelOptions.blocks().any() ? " with --vector-dtype " + modelOptions.vectorDtype() : "");
        ReportEntry entry = new ReportEntry(0, datatype, modelOptions.accumulation(), chosenOption(test, "rounding"),
            chosenOption(test, "overflow"), figures);
        RunSetup setup = new RunSetup(modelOptions.model.toString(), ModelHash.sha256(modelOptions.model),
            MultiplyAddOption.describeTarget(executor.describe(), test), test.multiplyAdd().optionName(), Version.get(),
            data.description(), referenceDescription);
        ComparisonReport report = new ComparisonReport(setup, 1, null, List.of(entry));
        Optional<String> violation = gate.violation(entry);

        if (json != null) files.put(json, ReportJson.toJson(report).getBytes(StandardCharsets.UTF_8));
        if (csv != null) files.put(csv, ReportCsv.toCsv(report).getBytes(StandardCharsets.UTF_8));
        files.forEach(AtomicFiles::write);

        System.out.print(ReportTable.render(report));
        if (layerTable != null) System.out.print("\nper layer, in graph order (" + modelOptions.dtype + " against float32):\n" + layerTable);
        files.keySet().forEach(f -> System.out.println("wrote " + f));
        if (violation.isPresent()) {
            System.err.println("byodt: accuracy gate failed: " + violation.get());
            return Main.MODEL_ERROR;
        }
        return 0;
    }

    private LayerRun compareLayers(Graph graph, DataSource data, CompileOptions float32, CompileOptions test, Executor executor) {
        Graph exposed = IntermediateOutputs.expose(graph);
        double saturation = SaturationProbe.largestFinite(test, executor);
        Batches batches = Batches.of(data, Baseline.singleInput(graph), classAxis);
        try (CompiledInference ref = CompiledInference.compile(exposed, float32, executor);
             CompiledInference tst = CompiledInference.compile(exposed, test, executor);
             Progress progress = Progress.start("float32 and " + test.datatypes().datatype() + ", per layer", data.size(), "img")) {
            tst.reportFallbacks(ComparisonRun::warnFallback);
            batches.checkOutputs(ref.outputs().subList(0, graph.outputs().size()));
            return LayerRun.compare(ref, tst, graph.outputs().size(), batches, saturation, progress);
        }
    }

    /** The chart as PNG or SVG, as the file name says. */
    /**
     * A datatype option as the run took it, or "-": the first of the run's datatypes that takes it says, since the
     * first datatype (float32 under --dtype-map, say) may not.
     */
    private static String chosenOption(CompileOptions options, String name) {
        return options.datatypes().instances().stream().map(i -> i.options().get(name)).filter(Objects::nonNull)
            .findFirst().orElse("-");
    }

    private byte[] chartBytes(JFreeChart c) {
        String name = chart.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".svg")) return ChartFiles.svgDocument(c, LayerChart.WIDTH, LayerChart.HEIGHT).getBytes(StandardCharsets.UTF_8);
        return ChartFiles.png(c, LayerChart.WIDTH, LayerChart.HEIGHT);
    }
}
