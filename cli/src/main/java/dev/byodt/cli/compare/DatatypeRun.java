package dev.byodt.cli.compare;

import dev.byodt.cli.progress.Progress;
import dev.byodt.cli.report.OutputFigures;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.graph.Graph;

import java.util.List;
import java.util.function.Consumer;

/** One datatype configuration measured against a {@link Baseline}: compiled once, run on the whole data set. */
public final class DatatypeRun {
    private DatatypeRun() {}

    /** @param label names the configuration on the progress bar */
    public static List<OutputFigures> measure(Graph graph, CompileOptions options, Baseline baseline, String label, Executor executor,
                                              Consumer<String> warnings) {
        double saturation = SaturationProbe.largestFinite(options, executor);
        ItemOutputs test;
        try (CompiledInference model = CompiledInference.compile(graph, options, executor);
             Progress progress = Progress.start(label, baseline.batches().data().size(), "img")) {
            model.reportFallbacks(warnings);
            test = ItemOutputs.compute(model, baseline.batches(), progress);
        }
        return Comparison.of(baseline.outputs(), test, baseline.batches().data(), saturation);
    }
}
