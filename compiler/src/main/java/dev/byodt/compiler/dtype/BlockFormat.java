package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntToLongFunction;
import java.util.stream.Collectors;

/**
 * A block datatype resolved in a registry: its name and the grids of its element and scale datatypes, and
 * how it quantizes values: a tensor scale for a whole tensor (for formats that have one), then, block by block,
 * the shared scale by the format's {@link ScaleRule} and each element the exact quotient value / (scale *
 * tensor scale) rounded to an element, clamped to the largest element magnitude: to the nearest, ties to even,
 * or in {@code elementRounding}, --rounding's mode; stochastically with {@code srBits} random bits, those of
 * each element's counter (docs/datatypes.md, "Stochastic rounding"), counters whose keys hash {@code seed} and,
 * with {@code items}, whose activations' counters count from the call's first item ({@link CallItems}).
 * All of it in exact rational arithmetic, so the result does not depend on how a float division would round.
 */
public record BlockFormat(BlockDatatypeName name, ElementGrid element, ValueGrid scale, RoundingMode elementRounding, int srBits, long seed,
                          Optional<CallItems> items) {
    /** The block datatype {@code name} names, its element and scale datatypes looked up in {@code registry}. */
    public static BlockFormat resolve(BlockDatatypeName name, DatatypeRegistry registry) {
        ElementGrid element = grid(name, "element", name.element(), registry);
        if (!element.signed() || !element.hasZero()) {
            throw new ByodtException("block datatype " + name + ": the element " + name.element()
                + " has no sign or no zero; elements must hold negative values and 0");
        }
        if (!(grid(name, "scale", name.scale(), registry) instanceof ValueGrid scale)) {
            throw new ByodtException("block datatype " + name + ": the scale " + name.scale()
                + " is a posit; scales must be minifloat or fixed-point datatypes, whose grids are uniform");
        }
        return new BlockFormat(name, element, scale, RoundingMode.NEAREST_EVEN, StochasticRounding.DEFAULT_BITS, 0, Optional.empty());
    }

    /**
     * The format with its elements rounded in --rounding's {@code mode} (an option name): a mode of
     * {@link RoundingMode}; fixed point's truncate is not a block mode.
     */
    public BlockFormat withElementRounding(String mode) {
        if (Arrays.stream(RoundingMode.values()).noneMatch(m -> m.optionName().equals(mode))) {
            throw new ByodtException("block datatype " + name + ": its elements round in the --rounding modes "
                + Arrays.stream(RoundingMode.values()).map(RoundingMode::optionName).collect(Collectors.joining(", ")) + ", not " + mode);
        }
        return new BlockFormat(name, element, scale, RoundingMode.of(mode), srBits, seed, items);
    }

    /** The format whose stochastic rounding adds {@code bits} random bits (--sr-bits), hashed from counters keyed by {@code seed} (--seed). */
    public BlockFormat withRandomBits(int bits, long seed) {
        if (bits < 1 || bits > StochasticRounding.MAX_BITS) throw new IllegalArgumentException("--sr-bits " + bits);
        return new BlockFormat(name, element, scale, elementRounding, bits, seed, items);
    }

    /** The format whose activations' counters count from the first of {@code items}, the items of a call of the model. */
    public BlockFormat withCallItems(CallItems items) {
        return new BlockFormat(name, element, scale, elementRounding, srBits, seed, Optional.of(items));
    }

    /** The first counter of the elements of the operand {@code operand} of the node {@code node}: a hash of the seed and both names. */
    public long counterKey(String node, String operand) { return StochasticRounding.key(seed, "block elements " + node + " " + operand); }

    private static ElementGrid grid(BlockDatatypeName block, String role, DatatypeName datatype, DatatypeRegistry registry) {
        DatatypeInstance instance = registry.instance(datatype, Map.of());
        return instance.valueGrid().orElseThrow(() -> new ByodtException("block datatype " + block + ": the " + role + " "
            + datatype + " declares no grid of values to round onto (minifloat, fixed-point and posit datatypes do)"));
    }

    public int blockSize() { return name.blockSize(); }

    /** The largest divisor of a tensor scale (see {@link #tensorScaleDivisor}). */
    private static final double MOST_TENSOR_SCALE_DIVISOR = 0x1p48;

    /**
     * What a tensor scale divides the tensor's largest magnitude by: L * S, the largest element times the largest
     * scale the rule chooses, the scale datatype's largest value (NVFP4: 6 * 448), or under a power-of-two rule its
     * largest power of two (UE4M3: 256, where 448 would make the tensor's largest blocks clip by 448 / 256); at most
     * 2^48. Every element times its block's scale is then at most that divisor (its value over the tensor scale), so
     * a dot product's scaled products are at most 2^96 and its float32 sum of up to 2^31 of them stays finite, and for
     * tensors of magnitude 1 the product of two tensor scales, which scales that sum, stays a normal float32 (2^-96).
     * L * S of a wide element (bfloat16, float32: about 2^128 times the scale's), or under E8M0 (2^127), would
     * overflow the one and make the other 0; capped, the tensor scale maps the largest magnitude to 2^48, and the
     * blocks' scales take what is left, down to their smallest.
     */
    public double tensorScaleDivisor() {
        double largestScale = name.rule().powersOfTwo() ? Math.scalb(1.0, scale.maxExponent()) : scale.largest();
        return Math.min(element.largest() * largestScale, MOST_TENSOR_SCALE_DIVISOR);
    }

    /**
     * The float32 tensor scale over {@code values}, for a format with one (1 without): NVIDIA's NVFP4 global
     * scale, the largest finite magnitude over {@link #tensorScaleDivisor}, rounded to float32, so that the
     * tensor's largest block gets the largest scale the rule chooses. 1 when that is 0 (an all-zero tensor, or
     * magnitudes so small that the quotient rounds to 0).
     */
    public double tensorScale(float[] values) {
        if (!name.tensorScale()) return 1;
        double amax = 0;
        for (float v : values) {
            if (Float.isFinite(v)) amax = Math.max(amax, Math.abs(v));
        }
        // amax and the divisor (a product of two grid values, exact in double) are float32s; the double
        // quotient rounded to float32 is the exact quotient rounded once (53 >= 2 * 24 + 2, Figueroa).
        float scaled = (float) (amax / tensorScaleDivisor());
        return scaled > 0 ? scaled : 1;
    }

    /**
     * The block of {@code count} values from {@code from}, quantized under {@code tensorScale}; rounding
     * stochastically, value {@code from + j}'s counter is {@code from + j}.
     */
    public QuantizedBlock quantize(float[] values, int from, int count, double tensorScale) {
        return quantize(values, from, count, tensorScale, j -> from + j);
    }

    /** The block of {@code count} values from {@code from}, quantized under {@code tensorScale}, value {@code from + j} with the counter {@code counters(j)}. */
    public QuantizedBlock quantize(float[] values, int from, int count, double tensorScale, IntToLongFunction counters) {
        double amax = 0;
        boolean special = false;
        for (int i = from; i < from + count; i++) {
            special |= !Float.isFinite(values[i]);
            amax = Math.max(amax, Math.abs(values[i]));
        }
        double[] elements = new double[count];
        if (special) return new QuantizedBlock(Double.NaN, tensorScale, elements);
        double shared = amax == 0 ? scale.smallest() : name.rule().scale(amax, tensorScale, element, scale);
        BigDecimal divisor = elementRounding == RoundingMode.STOCHASTIC ? ValueGrid.exactProduct(shared, tensorScale) : null;
        for (int i = 0; i < count; i++) {
            float v = values[from + i];
            double magnitude = elementRounding == RoundingMode.STOCHASTIC
                ? element.roundStochastically(new BigDecimal(Math.abs(v)), divisor,
                    StochasticRounding.randomBits(counters.applyAsLong(i), srBits), srBits)
                : element.round(Math.abs(v), shared, tensorScale, ValueGrid.Direction.of(elementRounding, v < 0));
            elements[i] = Math.copySign(magnitude, v);
        }
        return new QuantizedBlock(shared, tensorScale, elements);
    }
}
