package dev.byodt.cli.report;

/**
 * One intermediate tensor of a model as the reference (float32) run and the test (datatype) run computed it
 * for the same input, both as float32 in row-major order.
 */
public record LayerPair(String tensor, float[] reference, float[] test) {
    public LayerPair {
        if (reference.length != test.length) {
            throw new IllegalArgumentException("tensor '" + tensor + "': " + reference.length + " reference elements, " + test.length + " test elements");
        }
    }
}
