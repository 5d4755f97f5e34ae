package dev.byodt.compiler.ops;

/** Row-major shape arithmetic for the tests' own references, written apart from the kernels' flat indexing. */
final class ShapeIndexing {
    private ShapeIndexing() {}

    /** The number of elements of a tensor of this shape. */
    static long count(long[] shape) {
        long p = 1;
        for (long d : shape) p *= d;
        return p;
    }

    /** The indices of the element at row-major offset {@code flat} in a tensor of this shape. */
    static long[] unflatten(long[] shape, long flat) {
        long[] at = new long[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            at[d] = flat % shape[d];
            flat /= shape[d];
        }
        return at;
    }
}
