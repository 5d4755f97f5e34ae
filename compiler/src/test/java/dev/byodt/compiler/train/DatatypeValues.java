package dev.byodt.compiler.train;

import dev.byodt.compiler.dtype.posit.PositReference;

import java.util.HashSet;
import java.util.Set;

/**
 * Whether a float32 is a value of a datatype, decided without byodt's own conversions: bfloat16's bit layout,
 * Java's float16 conversion, and the exact posit reference's decoding of every posit(16,2) pattern.
 */
final class DatatypeValues {
    /** Every value of posit(16,2) but NaR; float32 holds each exactly (at most 11 fraction bits, scales 2^-56..2^56). */
    private static final Set<Float> POSIT16 = new HashSet<>();

    static {
        PositReference posit16 = new PositReference(16, 2);
        for (long p = 0; p < 1 << 16; p++) if (p != 1 << 15) POSIT16.add((float) posit16.toDouble(p));
    }

    private DatatypeValues() {}

    /** For bfloat16, float16 and custom[posit]16. */
    static boolean representable(String datatype, float v) {
        return switch (datatype) {
            case "bfloat16" -> (Float.floatToRawIntBits(v) & 0xFFFF) == 0;
            case "float16" -> Float.float16ToFloat(Float.floatToFloat16(v)) == v;
            case "custom[posit]16" -> POSIT16.contains(v);
            default -> throw new IllegalArgumentException(datatype);
        };
    }
}
