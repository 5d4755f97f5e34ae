package dev.byodt.cli.compare;

import dev.byodt.cli.report.ClassPositions;
import dev.byodt.cli.progress.Progress;
import dev.byodt.runtime.TensorSpec;

import java.util.List;

/**
 * A model's outputs over a whole data set, one row per item: output o of item i is
 * {@code values[o][i * rowLength[o] ...]}, its classes laid out as {@code classes[o]} says. Kept in memory, so a
 * sweep computes its float32 baseline once.
 */
public record ItemOutputs(List<String> names, int[] rowLength, ClassPositions[] classes, float[][] values) {

    /** Runs {@code model} on every call of {@code batches}, on all cores, stepping {@code progress} per item. */
    public static ItemOutputs compute(Inference model, Batches batches, Progress progress) {
        List<TensorSpec> outputs = model.outputs();
        int[] rows = batches.rowLengths(outputs);
        int items = batches.data().size();
        float[][] values = new float[rows.length][];
        for (int o = 0; o < rows.length; o++) values[o] = new float[Math.multiplyExact(items, rows[o])];
        ParallelCalls.run(batches.calls(), call -> {
            int first = batches.firstItem(call), count = batches.itemsIn(call);
            float[][] out = model.run(batches.input(call), first);
            for (int o = 0; o < rows.length; o++) System.arraycopy(out[o], 0, values[o], first * rows[o], count * rows[o]);
            progress.step(count);
        });
        return new ItemOutputs(outputs.stream().map(TensorSpec::name).toList(), rows, batches.classPositions(outputs), values);
    }

    public int items() { return rowLength.length == 0 || rowLength[0] == 0 ? 0 : values[0].length / rowLength[0]; }
}
