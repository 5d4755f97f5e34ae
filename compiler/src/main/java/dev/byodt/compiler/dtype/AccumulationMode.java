package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.List;
import java.util.Locale;

/**
 * How reductions (Conv, Gemm, MatMul, pooling and normalization sums) accumulate, --accumulate:
 * {@code dtype} rounds every add and multiply to the datatype (TVM's semantics), {@code float32} multiplies and
 * adds in float32 and rounds once per output, {@code exact} sums in the datatype's wide accumulator (a quire)
 * and rounds once, {@code int:W} sums exact products in a W-bit two's-complement register as a fixed-point MAC
 * array does, wrapping (int:W, int:W:wrap) or saturating (int:W:saturate) at every add, and rounds once. Each mode names the
 * {@link Accumulator} that lowers it.
 */
public sealed interface AccumulationMode {
    AccumulationMode DTYPE = new Simple("dtype");
    AccumulationMode FLOAT32 = new Simple("float32");
    AccumulationMode EXACT = new Simple("exact");

    /** The modes without parameters, each supported or not by a datatype as a whole. */
    static List<AccumulationMode> simpleModes() { return List.of(DTYPE, FLOAT32, EXACT); }

    /** What --accumulate says. */
    String optionName();

    /** How {@code datatype}'s reductions accumulate in this mode. */
    Accumulator accumulator(RegisteredDatatype datatype);

    /** dtype, float32 or exact. */
    record Simple(String optionName) implements AccumulationMode {
        @Override
        public Accumulator accumulator(RegisteredDatatype datatype) {
            return switch (optionName) {
                case "dtype" -> new DatatypeAccumulator(datatype);
                case "float32" -> new Float32Accumulator(datatype);
                default -> new ExactAccumulator(datatype);
            };
        }

        @Override
        public String toString() { return optionName; }
    }

    /** What a W-bit integer accumulator does with a sum that does not fit. */
    enum Overflow {
        WRAP, SATURATE;

        public String optionName() { return name().toLowerCase(Locale.ROOT); }

        public static Overflow parse(String text) {
            for (Overflow o : values()) {
                if (o.optionName().equals(text)) return o;
            }
            throw new ByodtException("unknown overflow '" + text + "' (wrap or saturate)");
        }
    }

    /** int:W: a {@code width}-bit two's-complement accumulator of exact products. */
    record Integer(int width, Overflow overflow) implements AccumulationMode {
        /** Widths whose sums with a product of two 32-bit values stay within the 64-bit register that models them. */
        public static final int MIN_WIDTH = 2, MAX_WIDTH = 62;

        public Integer {
            if (width < MIN_WIDTH || width > MAX_WIDTH) {
                throw new ByodtException("--accumulate int:" + width + ": the width must be " + MIN_WIDTH + ".." + MAX_WIDTH);
            }
        }

        @Override
        public String optionName() { return "int:" + width + ":" + overflow.optionName(); }

        @Override
        public Accumulator accumulator(RegisteredDatatype datatype) { return new IntegerAccumulator(datatype, this); }

        @Override
        public String toString() { return optionName(); }
    }

    /**
     * Parses --accumulate: int:W and int:W:wrap wrap (a plain two's-complement adder), int:W:saturate saturates.
     * The overflow is part of the mode because --overflow already names the datatype's own overflow (fixed point).
     */
    static AccumulationMode parse(String text) {
        for (AccumulationMode m : simpleModes()) {
            if (m.optionName().equals(text)) return m;
        }
        String[] parts = text.split(":", -1);
        if (parts[0].equals("int") && (parts.length == 2 || parts.length == 3)) {
            Overflow overflow = parts.length == 3 ? Overflow.parse(parts[2]) : Overflow.WRAP;
            try {
                return new Integer(java.lang.Integer.parseInt(parts[1]), overflow);
            } catch (NumberFormatException e) {
                throw new ByodtException("--accumulate " + text + ": W must be a number of bits, as in int:32");
            }
        }
        throw new ByodtException("unknown accumulation mode '" + text + "' (dtype, float32, exact or int:W[:wrap|:saturate])");
    }
}
