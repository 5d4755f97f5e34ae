package dev.byodt.cli.compare;

import dev.byodt.cli.report.ClassPositions;
import dev.byodt.cli.progress.Progress;
import dev.byodt.cli.report.LayerComparison;
import dev.byodt.cli.report.LayerFigures;
import dev.byodt.cli.report.LayerPair;
import dev.byodt.cli.report.OutputComparison;
import dev.byodt.cli.report.OutputFigures;
import dev.byodt.cli.report.Top1Tally;
import dev.byodt.runtime.TensorSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * --per-layer: the reference and the test model, both compiled with their intermediate tensors as extra
 * outputs (IntermediateOutputs), run call by call on the same inputs; each call's outputs and intermediates
 * are compared at once and dropped, so memory does not grow with the data set.
 *
 * @param outputs     the figures of the model's own outputs
 * @param layers      the figures of every intermediate tensor, in graph order
 */
public record LayerRun(List<OutputFigures> outputs, List<LayerFigures> layers) {

    /**
     * @param modelOutputs how many of the models' outputs are the graph's own; the rest are intermediates
     */
    public static LayerRun compare(Inference reference, Inference test, int modelOutputs, Batches batches,
                                   double saturationMagnitude, Progress progress) {
        List<TensorSpec> specs = reference.outputs();
        int[] rows = batches.rowLengths(specs.subList(0, modelOutputs));
        ClassPositions[] classes = batches.classPositions(specs.subList(0, modelOutputs));
        List<String> intermediates = specs.subList(modelOutputs, specs.size()).stream().map(TensorSpec::name).toList();
        List<OutputComparison> outputTotals = newOutputComparisons(specs, classes, saturationMagnitude);
        LayerComparison layerTotal = new LayerComparison(intermediates, saturationMagnitude);
        ParallelCalls.run(batches.calls(), call -> {
            float[] input = batches.input(call);
            int first = batches.firstItem(call), count = batches.itemsIn(call), batch = batches.layout().itemsPerCall();
            float[][] r = reference.run(input, first), t = test.run(input, first);
            List<OutputComparison> outputs = newOutputComparisons(specs, classes, saturationMagnitude);
            for (int o = 0; o < modelOutputs; o++) {
                for (int k = 0; k < count; k++) {
                    int label = o == 0 && batches.data().hasLabels() ? batches.data().label(first + k) : Top1Tally.NO_LABEL;
                    outputs.get(o).addItem(r[o], t[o], k * rows[o], rows[o], label);
                }
            }
            List<LayerPair> pairs = new ArrayList<>();
            for (int l = 0; l < intermediates.size(); l++) {
                float[] ref = r[modelOutputs + l], tst = t[modelOutputs + l];
                // A padded last call: keep the real items' share of a tensor batched along its first axis.
                int keep = count == batch ? ref.length : ref.length / batch * count;
                pairs.add(new LayerPair(intermediates.get(l), Arrays.copyOf(ref, keep), Arrays.copyOf(tst, keep)));
            }
            LayerComparison layers = new LayerComparison(intermediates, saturationMagnitude);
            layers.add(pairs);
            synchronized (layerTotal) {
                for (int o = 0; o < modelOutputs; o++) outputTotals.get(o).merge(outputs.get(o));
                layerTotal.merge(layers);
            }
            progress.step(count);
        });
        return new LayerRun(outputTotals.stream().map(OutputComparison::figures).toList(), layerTotal.figures());
    }

    private static List<OutputComparison> newOutputComparisons(List<TensorSpec> specs, ClassPositions[] classes, double saturationMagnitude) {
        List<OutputComparison> list = new ArrayList<>();
        for (int o = 0; o < classes.length; o++) list.add(new OutputComparison(specs.get(o).name(), classes[o], saturationMagnitude));
        return list;
    }
}
