package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A datatype as users write it after --dtype, parsed: the registered NAME it refers to, its width in bits and
 * its lanes. The grammar:
 * <pre>
 *   float32 | float16 | bfloat16 | fxpN_P | fxpN_PxLANES | custom[NAME]BITS | custom[NAME]BITSxLANES
 * </pre>
 * The short forms are spellings of registered names: {@code float16} is NAME float16 at 16 bits,
 * {@code bfloat16} is {@code custom[bfloat]16}, and {@code fxpN_P} is {@code custom[fxp_P]N}, so that a
 * fixed-point family registers one name, {@code fxp_{P}}, for every position of the binary point.
 */
public record DatatypeName(String name, int bits, int lanes) {
    public static final String GRAMMAR = "float32, float16, bfloat16, fxpN_P[xLANES] or custom[NAME]BITS[xLANES]";

    private static final Pattern CUSTOM = Pattern.compile("custom\\[([A-Za-z_][A-Za-z0-9_]*)\\]([0-9]{1,4})(?:x([0-9]{1,4}))?");
    private static final Pattern FIXED_POINT = Pattern.compile("fxp([0-9]{1,3})_([0-9]{1,3})(?:x([0-9]{1,4}))?");
    private static final String FIXED_POINT_PREFIX = "fxp_";

    public DatatypeName {
        if (bits < 1) throw new IllegalArgumentException("a datatype has at least 1 bit, not " + bits);
        if (lanes < 1) throw new IllegalArgumentException("a datatype has at least 1 lane, not " + lanes);
    }

    /** Parses {@code text}; a malformed name is an error that says what the grammar is. */
    public static DatatypeName parse(String text) {
        String t = text.strip();
        switch (t) {
            case "float32" -> { return new DatatypeName("float32", 32, 1); }
            case "float16" -> { return new DatatypeName("float16", 16, 1); }
            case "bfloat16" -> { return new DatatypeName("bfloat", 16, 1); }
            default -> { }
        }
        Matcher fixed = FIXED_POINT.matcher(t);
        if (fixed.matches()) {
            return new DatatypeName(FIXED_POINT_PREFIX + Integer.parseInt(fixed.group(2)), positive(fixed.group(1), text),
                lanes(fixed.group(3), text));
        }
        Matcher custom = CUSTOM.matcher(t);
        if (custom.matches()) {
            return new DatatypeName(custom.group(1), positive(custom.group(2), text), lanes(custom.group(3), text));
        }
        throw new ByodtException("malformed datatype '" + text + "': expected " + GRAMMAR);
    }

    private static int lanes(String digits, String text) { return digits == null ? 1 : positive(digits, text); }

    private static int positive(String digits, String text) {
        int n = Integer.parseInt(digits);
        if (n < 1) throw new ByodtException("malformed datatype '" + text + "': widths and lanes start at 1 (" + GRAMMAR + ")");
        return n;
    }

    /** The shortest spelling that parses back to this name: fxp16_13, fxp16_13x4, bfloat16, custom[posit]16x2. */
    @Override
    public String toString() {
        String lanesSuffix = lanes == 1 ? "" : "x" + lanes;
        if (name.startsWith(FIXED_POINT_PREFIX) && name.substring(FIXED_POINT_PREFIX.length()).matches("[0-9]+")) {
            return "fxp" + bits + "_" + name.substring(FIXED_POINT_PREFIX.length()) + lanesSuffix;
        }
        if (lanes == 1) {
            if (name.equals("float32") && bits == 32) return "float32";
            if (name.equals("float16") && bits == 16) return "float16";
            if (name.equals("bfloat") && bits == 16) return "bfloat16";
        }
        return "custom[" + name + "]" + bits + lanesSuffix;
    }
}
