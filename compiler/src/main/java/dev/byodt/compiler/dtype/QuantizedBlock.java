package dev.byodt.compiler.dtype;

/**
 * One block of a block datatype: its shared scale, the tensor scale over it (1 without one) and its elements,
 * each a value of the element datatype, so that value i is elements[i] * scale * tensorScale. A NaN scale
 * (a NaN or an infinity in the block) makes every value NaN.
 */
public record QuantizedBlock(double scale, double tensorScale, double[] elements) {
    public QuantizedBlock {
        elements = elements.clone();
    }

    public double element(int i) { return elements[i]; }

    public int size() { return elements.length; }

    /**
     * The value element i stands for. Exact in double: an element has at most 25 significant bits (the grids
     * allow no more than float32's fractions), a scale at most 8, a tensor scale 24, and the exponents stay far
     * inside double's range.
     */
    public double value(int i) { return elements[i] * scale * tensorScale; }
}
