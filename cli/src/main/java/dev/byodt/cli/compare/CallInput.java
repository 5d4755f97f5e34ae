package dev.byodt.cli.compare;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

/**
 * The input tensor of one call, from data that every source carries as float32: a float32 input as it is, an
 * integer input (a language model's token ids, from an int64 .npy) converted back to its integers, which the
 * data must hold exactly.
 */
final class CallInput {
    private CallInput() {}

    static Tensor of(TensorSpec input, float[] values) {
        if (input.type() == ElementType.FLOAT32) return Tensor.ofFloats(input.shape(), values);
        if (!input.type().isInteger()) {
            throw new ByodtException("input '" + input.name() + "' is " + input.type() + "; data can feed float32 and integer inputs");
        }
        long[] integers = integers(input, values);
        Tensor tensor = Tensor.zeros(input.type(), input.shape());
        for (int i = 0; i < integers.length; i++) tensor.setLong(i, integers[i]);
        return tensor;
    }

    /** The values as integers, for an integer input. */
    static long[] integers(TensorSpec input, float[] values) {
        long[] integers = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            if (values[i] != Math.rint(values[i])) {
                throw new ByodtException("input '" + input.name() + "' is " + input.type() + ", but the data holds " + values[i]
                    + ", which is not an integer");
            }
            integers[i] = (long) values[i];
        }
        return integers;
    }
}
