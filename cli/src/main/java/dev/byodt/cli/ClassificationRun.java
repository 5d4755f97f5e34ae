package dev.byodt.cli;

import dev.byodt.cli.compare.Baseline;
import dev.byodt.cli.compare.Batches;
import dev.byodt.cli.compare.CompiledInference;
import dev.byodt.cli.compare.Executor;
import dev.byodt.cli.progress.Progress;
import dev.byodt.cli.compare.ItemOutputs;
import dev.byodt.cli.report.Top1;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.runtime.data.DataSource;

/**
 * Top-1 accuracy of a model on labelled data in one datatype, with nothing to compare against (`byodt run`
 * without --dtype): the model is compiled once, for the executor's target, and the items are spread over all
 * cores (on a RISC-V target, a qemu process per core).
 */
final class ClassificationRun {
    private final ModelOptions modelOptions;
    private final CompileOptions options;
    private final DataOptions dataOptions;
    private final String dataSpec;
    private final Integer classAxis;
    private final Executor executor;

    /** @param classAxis --class-axis: labels do not go with an output it makes one of several positions per item */
    ClassificationRun(ModelOptions modelOptions, CompileOptions options, DataOptions dataOptions, String dataSpec, Integer classAxis,
                      Executor executor) {
        this.modelOptions = modelOptions;
        this.options = options;
        this.dataOptions = dataOptions;
        this.dataSpec = dataSpec;
        this.classAxis = classAxis;
        this.executor = executor;
    }

    int call() {
        long start = System.nanoTime();
        DataOptions.Loaded loaded = dataOptions.load(dataSpec, modelOptions.model, modelOptions.shapeOverrides(),
            modelOptions.boundInputs(), executor);
        DataSource data = loaded.data();
        Batches batches = Batches.of(data, Baseline.singleInput(loaded.graph()), classAxis);
        ItemOutputs outputs;
        double compileSeconds, runSeconds;
        try (CompiledInference model = CompiledInference.compile(loaded.graph(), options, executor)) {
            model.reportFallbacks(ComparisonRun::warnFallback);
            batches.checkOutputs(model.outputs());
            compileSeconds = (System.nanoTime() - start) / 1e9;
            long runStart = System.nanoTime();
            try (Progress progress = Progress.start(modelOptions.dtype, data.size(), "img")) {
                outputs = ItemOutputs.compute(model, batches, progress);
            }
            runSeconds = (System.nanoTime() - runStart) / 1e9;
        }
        System.out.printf("model     %s%n", modelOptions.model);
        System.out.printf("data      %s%n", data.description());
        System.out.printf("dtype     %s%s%n", modelOptions.dtype, modelOptions.describeDatatypeOptions());
        if (executor instanceof Executor.Emulated) {
            System.out.printf("target    %s, batch %d, %d process%s%n", executor.describe(), batches.layout().itemsPerCall(),
                batches.calls(), batches.calls() == 1 ? "" : "es");
        }
        if (data.hasLabels()) {
            int correct = correct(outputs, data);
            System.out.printf("top-1     %.2f%% (%d/%d)%s%n", 100.0 * correct / data.size(), correct, data.size(),
                RecordedAccuracy.describe(modelOptions.model, data.size()));
        } else {
            System.out.println("top-1     - (the data has no labels)");
        }
        System.out.printf("time      compile %.2f s, inference %.3f s (%.0f items/s)%n", compileSeconds, runSeconds, data.size() / runSeconds);
        return 0;
    }

    private static int correct(ItemOutputs outputs, DataSource data) {
        int row = outputs.rowLength()[0], correct = 0;
        for (int i = 0; i < data.size(); i++) {
            if (Top1.argmax(outputs.values()[0], i * row, row) == data.label(i)) correct++;
        }
        return correct;
    }
}
