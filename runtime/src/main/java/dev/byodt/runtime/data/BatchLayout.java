package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.TensorSpec;

import java.util.Arrays;

/**
 * How a data source's items fill a model input: an input of shape [B, item...] takes B items per call
 * (a batch), an input whose shape is the item's shape takes one (ONNX test data stores whole inputs). An integer
 * input (token ids) takes only data of integers.
 *
 * @param itemsPerCall items copied, one after another, into the input of one model call
 */
public record BatchLayout(int itemsPerCall) {

    /** The layout for this input, or a one-line error when the data cannot fill it. */
    public static BatchLayout of(DataSource data, TensorSpec input) {
        if (input.type().isInteger() && !data.holdsIntegers()) {
            throw new ByodtException("input '" + input.name() + "' is " + input.type() + " but " + data.description()
                + " holds float32 data (integer inputs, such as token ids, take an int64 or uint8 .npy)");
        }
        if (input.type() != ElementType.FLOAT32 && !input.type().isInteger()) {
            throw new ByodtException("input '" + input.name() + "' is " + input.type() + ", which data cannot feed");
        }
        long[] model = input.shape(), item = data.itemShape();
        if (Arrays.equals(model, item)) return new BatchLayout(1);
        boolean batched = model.length == item.length + 1
            && Arrays.equals(Arrays.copyOfRange(model, 1, model.length), item) && model[0] >= 1;
        if (!batched) {
            throw new ByodtException("input '" + input.name() + "' has shape " + Shapes.format(model) + " but each item of "
                + data.description() + " is " + Shapes.format(item) + " (expected " + Shapes.format(model) + " or Bx"
                + Shapes.format(item) + "; a symbolic dimension is 1 unless --shape " + input.name() + "=DIMS gives it)");
        }
        if (model[0] > Integer.MAX_VALUE) throw new ByodtException("input '" + input.name() + "' has a batch of " + model[0]);
        return new BatchLayout((int) model[0]);
    }

    /** The number of model calls that cover {@code items} items; the last call's batch is padded. */
    public int callsFor(int items) { return (items + itemsPerCall - 1) / itemsPerCall; }
}
