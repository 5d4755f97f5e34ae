package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.Locale;
import java.util.function.Function;

/**
 * How reductions (Conv, Gemm, MatMul, pooling and normalization sums) accumulate, --accumulate:
 * DTYPE rounds every add and multiply to the datatype (TVM's semantics), FLOAT32 multiplies and adds in
 * float32 and rounds once per output, EXACT sums in the datatype's wide accumulator (a quire) and rounds once.
 * Each mode names the {@link Accumulator} that lowers it.
 */
public enum AccumulationMode {
    DTYPE(DatatypeAccumulator::new), FLOAT32(Float32Accumulator::new), EXACT(ExactAccumulator::new);

    private final Function<RegisteredDatatype, Accumulator> accumulator;

    AccumulationMode(Function<RegisteredDatatype, Accumulator> accumulator) {
        this.accumulator = accumulator;
    }

    public String optionName() { return name().toLowerCase(Locale.ROOT); }

    /** How {@code datatype}'s reductions accumulate in this mode. */
    Accumulator accumulator(RegisteredDatatype datatype) { return accumulator.apply(datatype); }

    public static AccumulationMode parse(String text) {
        for (AccumulationMode m : values()) {
            if (m.optionName().equals(text)) return m;
        }
        throw new ByodtException("unknown accumulation mode '" + text + "' (dtype, float32 or exact)");
    }
}
