package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Map;

/**
 * A block datatype resolved in a registry: its name and the grids of its element and scale datatypes, and
 * how it quantizes values: a tensor scale for a whole tensor (for formats that have one), then, block by block,
 * the shared scale by the format's {@link ScaleRule} and each element the exact quotient value / (scale *
 * tensor scale) rounded to an element, clamped to the largest element magnitude: to the nearest, ties to even,
 * or in {@code elementRounding}, --rounding's mode where it is a deterministic one.
 * All of it in exact rational arithmetic, so the result does not depend on how a float division would round.
 */
public record BlockFormat(BlockDatatypeName name, ValueGrid element, ValueGrid scale, RoundingMode elementRounding) {
    /** The block datatype {@code name} names, its element and scale datatypes looked up in {@code registry}. */
    public static BlockFormat resolve(BlockDatatypeName name, DatatypeRegistry registry) {
        ValueGrid element = grid(name, "element", name.element(), registry);
        if (!element.signed() || !element.hasZero()) {
            throw new ByodtException("block datatype " + name + ": the element " + name.element()
                + " has no sign or no zero; elements must hold negative values and 0");
        }
        return new BlockFormat(name, element, grid(name, "scale", name.scale(), registry), RoundingMode.NEAREST_EVEN);
    }

    /**
     * The format with its elements rounded in --rounding's {@code mode} (an option name): a deterministic mode of
     * {@link RoundingMode}; stochastic rounding and fixed point's truncate are not block modes.
     */
    public BlockFormat withElementRounding(String mode) {
        boolean deterministic = Arrays.stream(RoundingMode.values()).anyMatch(m -> m.optionName().equals(mode) && m != RoundingMode.STOCHASTIC);
        if (!deterministic) {
            throw new ByodtException("block datatype " + name + ": its elements round in the deterministic --rounding modes, not " + mode);
        }
        return new BlockFormat(name, element, scale, RoundingMode.of(mode));
    }

    private static ValueGrid grid(BlockDatatypeName block, String role, DatatypeName datatype, DatatypeRegistry registry) {
        DatatypeInstance instance = registry.instance(datatype, Map.of());
        return instance.valueGrid().orElseThrow(() -> new ByodtException("block datatype " + block + ": the " + role + " "
            + datatype + " declares no grid of values to round onto (minifloat and fixed-point datatypes do)"));
    }

    public int blockSize() { return name.blockSize(); }

    /**
     * The float32 tensor scale over {@code values}, for a format with one (1 without): NVIDIA's NVFP4 global
     * scale, the largest finite magnitude over (largest element * largest scale), rounded to float32, so that
     * the tensor's largest block scale is near the scale datatype's largest value. 1 when that is 0 (an
     * all-zero tensor, or magnitudes so small that the quotient rounds to 0).
     */
    public double tensorScale(float[] values) {
        if (!name.tensorScale()) return 1;
        double amax = 0;
        for (float v : values) {
            if (Float.isFinite(v)) amax = Math.max(amax, Math.abs(v));
        }
        // amax and the divisor (a product of two grid values, exact in double) are float32s; the double
        // quotient rounded to float32 is the exact quotient rounded once (53 >= 2 * 24 + 2, Figueroa).
        float scaled = (float) (amax / (element.largest() * scale.largest()));
        return scaled > 0 ? scaled : 1;
    }

    /** The block of {@code count} values from {@code from}, quantized under {@code tensorScale}. */
    public QuantizedBlock quantize(float[] values, int from, int count, double tensorScale) {
        double amax = 0;
        boolean special = false;
        for (int i = from; i < from + count; i++) {
            special |= !Float.isFinite(values[i]);
            amax = Math.max(amax, Math.abs(values[i]));
        }
        double[] elements = new double[count];
        if (special) return new QuantizedBlock(Double.NaN, tensorScale, elements);
        BigDecimal exactTensorScale = new BigDecimal(tensorScale);
        double shared = amax == 0 ? scale.smallest() : name.rule().scale(new BigDecimal(amax), exactTensorScale, element, scale);
        BigDecimal divisor = new BigDecimal(shared).multiply(exactTensorScale);
        for (int i = 0; i < count; i++) {
            float v = values[from + i];
            double magnitude = element.round(new BigDecimal(Math.abs(v)), divisor, ValueGrid.Direction.of(elementRounding, v < 0));
            elements[i] = Math.copySign(magnitude, v);
        }
        return new QuantizedBlock(shared, tensorScale, elements);
    }
}
