package dev.byodt.cli;

import dev.byodt.cli.compare.Baseline;
import dev.byodt.cli.compare.ItemOutputs;
import dev.byodt.cli.report.Top1;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.runtime.data.DataSource;

/**
 * Top-1 accuracy of a model on labelled data in one datatype, with nothing to compare against (`byodt run`
 * without --dtype): the model is compiled once and the items are spread over all cores.
 */
final class ClassificationRun {
    private final ModelOptions modelOptions;
    private final DataOptions dataOptions;
    private final String dataSpec;

    ClassificationRun(ModelOptions modelOptions, DataOptions dataOptions, String dataSpec) {
        this.modelOptions = modelOptions;
        this.dataOptions = dataOptions;
        this.dataSpec = dataSpec;
    }

    int call() {
        long start = System.nanoTime();
        Graph graph = dataOptions.load(modelOptions.model, modelOptions.shapeOverrides(), modelOptions.boundInputs());
        DataSource data = dataOptions.open(dataSpec, modelOptions.model, Baseline.singleInput(graph).shape());
        Baseline run = Baseline.compute(graph, modelOptions.model, modelOptions.compileOptions(), Baseline.BYODT, data,
            ComparisonRun::warnFallback);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("model     %s%n", modelOptions.model);
        System.out.printf("data      %s%n", data.description());
        System.out.printf("dtype     %s%s%n", modelOptions.dtype, modelOptions.describeDatatypeOptions());
        if (data.hasLabels()) {
            int correct = correct(run.outputs(), data);
            System.out.printf("top-1     %.2f%% (%d/%d)%s%n", 100.0 * correct / data.size(), correct, data.size(),
                RecordedAccuracy.describe(modelOptions.model, data.size()));
        } else {
            System.out.println("top-1     - (the data has no labels)");
        }
        System.out.printf("time      %.2f s for compiling and %d items (%.0f items/s overall)%n", seconds, data.size(), data.size() / seconds);
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
