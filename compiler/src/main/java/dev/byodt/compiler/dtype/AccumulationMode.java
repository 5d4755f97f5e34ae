package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How reductions (Conv, Gemm, MatMul, pooling and normalization sums) accumulate, --accumulate:
 * {@code dtype} rounds every add and multiply to the datatype (TVM's semantics), {@code float32} multiplies and
 * adds in float32 and rounds once per output, {@code exact} sums in the datatype's wide accumulator (a quire)
 * and rounds once, {@code int:W} sums exact products in a W-bit two's-complement register as a fixed-point MAC
 * array does, wrapping (int:W, int:W:wrap) or saturating (int:W:saturate) at every add, and rounds once;
 * {@code fused:F=..,G=..} sums groups of G exact products as a fused dot-product unit does ({@link Fused}). Each
 * mode names the {@link Accumulator} that lowers it.
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
                case "dtype" -> datatype.roundsArithmeticFromFloat32() ? new RoundedFloat32Accumulator(datatype) : new DatatypeAccumulator(datatype);
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

    /** How a fused unit treats the bits of an aligned term below its window. */
    enum Rounding {
        /** Truncated: each aligned term rounds toward zero. */
        RZ,
        /** Rounded: each aligned term rounds to the nearest multiple of the window's unit, ties to even. */
        RNE;

        public String optionName() { return name().toLowerCase(Locale.ROOT); }

        public static Rounding parse(String text) {
            for (Rounding r : values()) {
                if (r.optionName().equals(text)) return r;
            }
            throw new ByodtException("--accumulate fused: unknown rounding '" + text + "' (rz or rne)");
        }
    }

    /**
     * fused:F=..,G=..[,rounding=rz|rne][,acc=float32], or a preset (fused:hopper-fp8): a fused dot-product unit
     * ({@link FusedAccumulator} says exactly what it computes). {@code optionName} is how the mode was named.
     */
    record Fused(String optionName, int fractionBits, int group, Rounding rounding) implements AccumulationMode {
        /**
         * F keeps a window's integer sum of at most {@link #MAX_GROUP} + 1 terms, each below 2^(F+1) units, exact
         * in the 53 bits of a double; G + 1 words (the accumulator and G pending products) fit 4096 bits.
         */
        public static final int MAX_FRACTION_BITS = 40, MAX_GROUP = 63;

        public Fused {
            if (fractionBits < 1 || fractionBits > MAX_FRACTION_BITS) {
                throw new ByodtException("--accumulate " + optionName + ": F must be 1.." + MAX_FRACTION_BITS);
            }
            if (group < 1 || group > MAX_GROUP) {
                throw new ByodtException("--accumulate " + optionName + ": G must be 1.." + MAX_GROUP);
            }
        }

        /** The parameters written out: fused:F=13,G=32,rounding=rz. */
        public String parameters() { return "fused:F=" + fractionBits + ",G=" + group + ",rounding=" + rounding.optionName(); }

        @Override
        public Accumulator accumulator(RegisteredDatatype datatype) { return new FusedAccumulator(datatype, this); }

        @Override
        public String toString() { return optionName; }

        /** Parses what follows fused: : a preset's name, or KEY=VALUE parameters separated by commas. */
        static Fused parse(String text, String body) {
            if (!body.contains("=")) return FusedPreset.named(body).mode();
            Map<String, String> values = new LinkedHashMap<>();
            for (String part : body.split(",", -1)) {
                String[] kv = part.split("=", 2);
                if (kv.length != 2 || !List.of("F", "G", "rounding", "acc").contains(kv[0]) || values.put(kv[0], kv[1]) != null) {
                    throw new ByodtException("--accumulate " + text + ": expected F=<bits>,G=<group>[,rounding=rz|rne][,acc=float32], not '" + part + "'");
                }
            }
            if (!values.getOrDefault("acc", "float32").equals("float32")) {
                throw new ByodtException("--accumulate " + text + ": the accumulator is float32 (acc=float32)");
            }
            if (!values.containsKey("F") || !values.containsKey("G")) {
                throw new ByodtException("--accumulate " + text + ": F=<bits> and G=<group> are required, as in fused:F=13,G=32");
            }
            return new Fused(text, number(text, values.get("F")), number(text, values.get("G")),
                Rounding.parse(values.getOrDefault("rounding", "rz")));
        }

        private static int number(String text, String value) {
            try {
                return java.lang.Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new ByodtException("--accumulate " + text + ": '" + value + "' is not a number");
            }
        }
    }

    /**
     * Parses --accumulate: int:W and int:W:wrap wrap (a plain two's-complement adder), int:W:saturate saturates.
     * The overflow is part of the mode because --overflow already names the datatype's own overflow (fixed point).
     */
    static AccumulationMode parse(String text) {
        for (AccumulationMode m : simpleModes()) {
            if (m.optionName().equals(text)) return m;
        }
        if (text.startsWith("fused:")) return Fused.parse(text, text.substring("fused:".length()));
        String[] parts = text.split(":", -1);
        if (parts[0].equals("int") && (parts.length == 2 || parts.length == 3)) {
            Overflow overflow = parts.length == 3 ? Overflow.parse(parts[2]) : Overflow.WRAP;
            try {
                return new Integer(java.lang.Integer.parseInt(parts[1]), overflow);
            } catch (NumberFormatException e) {
                throw new ByodtException("--accumulate " + text + ": W must be a number of bits, as in int:32");
            }
        }
        throw new ByodtException("unknown accumulation mode '" + text + "' (dtype, float32, exact, int:W[:wrap|:saturate] or fused:F=<bits>,G=<group>[,rounding=rz|rne] or fused:<preset>)");
    }
}
