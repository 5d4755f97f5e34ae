package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.Locale;

/**
 * How reductions (Conv, Gemm, MatMul, pooling and normalization sums) accumulate, --accumulate:
 * DTYPE rounds every add and multiply to the datatype (TVM's semantics), FLOAT32 multiplies and adds in
 * float32 and rounds once per output, EXACT sums in the datatype's wide accumulator (a quire) and rounds once.
 */
public enum AccumulationMode {
    DTYPE, FLOAT32, EXACT;

    public String optionName() { return name().toLowerCase(Locale.ROOT); }

    public static AccumulationMode parse(String text) {
        for (AccumulationMode m : values()) {
            if (m.optionName().equals(text)) return m;
        }
        throw new ByodtException("unknown accumulation mode '" + text + "' (dtype, float32 or exact)");
    }
}
