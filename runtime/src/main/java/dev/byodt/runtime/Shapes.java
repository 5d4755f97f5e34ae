package dev.byodt.runtime;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Static shapes: element counts that refuse to overflow, and the "1x1x28x28" notation users see. */
public final class Shapes {
    private Shapes() {}

    /** The number of elements, or an error naming the tensor when the product overflows a long. */
    public static long elementCount(long[] shape, String tensorName) {
        long count = 1;
        for (long d : shape) {
            if (d < 0) throw new ByodtException("tensor '" + tensorName + "' has a negative dimension in shape " + format(shape));
            try {
                count = Math.multiplyExact(count, d);
            } catch (ArithmeticException e) {
                throw new ByodtException("tensor '" + tensorName + "' has shape " + format(shape)
                    + " whose element count overflows 64 bits");
            }
        }
        return count;
    }

    public static String format(long[] shape) {
        if (shape.length == 0) return "scalar";
        return Arrays.stream(shape).mapToObj(Long::toString).collect(Collectors.joining("x"));
    }

    /** Row-major strides, in elements. */
    public static long[] strides(long[] shape) {
        long[] strides = new long[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            strides[i] = s;
            s *= shape[i];
        }
        return strides;
    }
}
