package dev.byodt.cli.compare;

import dev.byodt.cli.report.ClassPositions;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.TensorSpec;
import dev.byodt.runtime.data.BatchLayout;
import dev.byodt.runtime.data.DataSource;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * How a data set is cut into model calls: call c takes items c*B .. c*B+B-1 (B = the batch the model was
 * compiled with). The last call of a data set whose size is not a multiple of B is padded with zeros, and
 * the padding's outputs are dropped. Each output holds one row per item: a [B, ...] output is split along
 * its first axis (a model compiled for one item may return any shape, which is then that item's row).
 */
public record Batches(DataSource data, BatchLayout layout, TensorSpec input, Integer classAxis) {

    /** @param classAxis --class-axis, or null for the last axis of each output of rank 3 or more ({@link ClassPositions}) */
    public static Batches of(DataSource data, TensorSpec input, Integer classAxis) {
        return new Batches(data, BatchLayout.of(data, input), input, classAxis);
    }

    public int calls() { return layout.callsFor(data.size()); }

    public int firstItem(int call) { return call * layout.itemsPerCall(); }

    /** Items call {@code call} really holds: the batch, or fewer in a padded last call. */
    public int itemsIn(int call) { return Math.min(layout.itemsPerCall(), data.size() - firstItem(call)); }

    /** The input of call {@code call}, padding included. */
    public float[] input(int call) {
        long itemElements = data.itemElements();
        float[] values = new float[Math.toIntExact(input.elementCount())];
        MemorySegment all = MemorySegment.ofArray(values);
        for (int k = 0; k < itemsIn(call); k++) {
            data.readItem(firstItem(call) + k, all.asSlice(k * itemElements * Float.BYTES, itemElements * Float.BYTES));
        }
        return values;
    }

    /** The elements per item of each output; an output without the batch as its first axis is an error. */
    public int[] rowLengths(List<TensorSpec> outputs) {
        int batch = layout.itemsPerCall();
        int[] lengths = new int[outputs.size()];
        for (int i = 0; i < lengths.length; i++) {
            TensorSpec out = outputs.get(i);
            long[] shape = out.shape();
            if (batch > 1 && (shape.length == 0 || shape[0] != batch)) {
                throw new ByodtException("output '" + out.name() + "' has shape " + Shapes.format(shape) + ", not a batch of " + batch
                    + " along its first axis, so its rows cannot be matched to items (run with --batch 1)");
            }
            lengths[i] = Math.toIntExact(out.elementCount() / batch);
        }
        return lengths;
    }

    /** Where the classes lie in each output's rows. */
    public ClassPositions[] classPositions(List<TensorSpec> outputs) {
        int[] rows = rowLengths(outputs);
        ClassPositions[] positions = new ClassPositions[rows.length];
        for (int i = 0; i < rows.length; i++) positions[i] = ClassPositions.of(outputs.get(i), rows[i], classAxis);
        return positions;
    }

    /**
     * Checks, before any call, that --class-axis fits every output and that the data's labels, if any, fit the
     * first: one class per item, below its class count. Labels name one class per item, so an output scored
     * position by position takes none.
     */
    public void checkOutputs(List<TensorSpec> outputs) {
        ClassPositions first = classPositions(outputs)[0];
        if (!data.hasLabels()) return;
        if (first.positions() > 1) {
            throw new ByodtException("the labels give one class per item, but output '" + outputs.get(0).name() + "' of shape "
                + Shapes.format(outputs.get(0).shape()) + " has " + first.positions() + " positions per item along class axis "
                + first.axis() + "; compare it without labels");
        }
        data.requireLabelsBelow(first.classes());
    }
}
