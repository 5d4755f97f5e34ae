package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A datatype as users write it after --dtype, parsed: the registered NAME it refers to, its width in bits and
 * its lanes; or, through {@link #parseBlock}, a block datatype. The grammar:
 * <pre>
 *   float32 | float16 | bfloat16 | fxpN_P | fxpN_PxLANES | custom[NAME]BITS | custom[NAME]BITSxLANES
 *   mxfp8e4m3 | mxfp8e5m2 | mxfp6e3m2 | mxfp6e2m3 | mxfp4 | mxint8 | nvfp4
 *   block[ELEMENT,SIZE,SCALE,RULE] | block[ELEMENT,SIZE,SCALE,RULE,tensor]
 * </pre>
 * In a block datatype ELEMENT and SCALE are scalar names; a bare NAME for the scale means {@code custom[NAME]8},
 * scales being bytes ({@code e8m0}, {@code ue4m3}, {@code fp8e4m3}); RULE is a {@link ScaleRule}; {@code tensor}
 * adds a float32 scale per tensor.
 * The short forms are spellings of registered names: {@code float16} is NAME float16 at 16 bits,
 * {@code bfloat16} is {@code custom[bfloat]16}, and {@code fxpN_P} is {@code custom[fxp_P]N}, so that a
 * fixed-point family registers one name, {@code fxp_{P}}, for every position of the binary point.
 */
public record DatatypeName(String name, int bits, int lanes) {
    public static final String GRAMMAR = "float32, float16, bfloat16, fxpN_P[xLANES] or custom[NAME]BITS[xLANES]";

    private static final Pattern CUSTOM = Pattern.compile("custom\\[([A-Za-z_][A-Za-z0-9_]*)\\]([0-9]{1,4})(?:x([0-9]{1,4}))?");
    private static final Pattern FIXED_POINT = Pattern.compile("fxp([0-9]{1,3})_([0-9]{1,3})(?:x([0-9]{1,4}))?");
    private static final String FIXED_POINT_PREFIX = "fxp_";
    /** A scale written by its registered NAME alone (e8m0), not a spelling of the scalar grammar (fxp8_6, float16). */
    private static final Pattern BARE_NAME = Pattern.compile("(?!fxp[0-9]|float|bfloat16$)[A-Za-z_][A-Za-z0-9_]*");

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
        if (parseBlock(t).isPresent()) {
            throw new ByodtException("'" + text + "' is a block datatype, which only run's and compile's --dtype take (for MatMul, Gemm"
                + " and Conv, docs/datatypes.md, \"Block formats\"); here a scalar datatype is expected (" + GRAMMAR + ")");
        }
        throw new ByodtException("malformed datatype '" + text + "': expected " + GRAMMAR + ", or a block datatype: " + blockGrammar());
    }

    /** The block datatypes' grammar, for messages: the built-in names and the general spelling. */
    public static String blockGrammar() {
        return String.join(", ", BlockDatatypeName.builtIns().keySet()) + " or block[ELEMENT,SIZE,SCALE,RULE[,tensor]]";
    }

    /** The block datatype {@code text} names, or empty when it is not a block datatype's spelling. */
    public static Optional<BlockDatatypeName> parseBlock(String text) {
        String t = text.strip();
        BlockDatatypeName builtIn = BlockDatatypeName.builtIns().get(t);
        if (builtIn != null) return Optional.of(builtIn);
        if (!t.startsWith(BlockDatatypeName.PREFIX)) return Optional.empty();
        if (!t.endsWith("]")) throw malformedBlock(text, "it does not end with ]");
        List<String> parts = topLevelParts(t.substring(BlockDatatypeName.PREFIX.length(), t.length() - 1));
        if (parts.size() != 4 && !(parts.size() == 5 && parts.get(4).equals(BlockDatatypeName.TENSOR_SCALE))) {
            throw malformedBlock(text, "expected four parts and an optional 'tensor'");
        }
        if (!parts.get(1).matches("[0-9]{1,6}") || Integer.parseInt(parts.get(1)) < 1) {
            throw malformedBlock(text, "the block size '" + parts.get(1) + "' is not a number from 1");
        }
        String scale = BARE_NAME.matcher(parts.get(2)).matches() ? "custom[" + parts.get(2) + "]8" : parts.get(2);
        try {
            return Optional.of(new BlockDatatypeName(parse(parts.get(0)), Integer.parseInt(parts.get(1)), parse(scale),
                ScaleRule.parse(parts.get(3)), parts.size() == 5));
        } catch (ByodtException e) {
            throw malformedBlock(text, e.getMessage());
        }
    }

    /** The parts between commas that are not inside brackets, so that custom[NAME]BITS stays one part. */
    /** The comma-separated parts of {@code inner}, splitting only at commas outside brackets. */
    static List<String> topLevelParts(String inner) {
        List<String> parts = new ArrayList<>();
        int depth = 0, start = 0;
        for (int i = 0; i < inner.length(); i++) {
            char c = inner.charAt(i);
            if (c == '[') depth++;
            else if (c == ']') depth--;
            else if (c == ',' && depth == 0) {
                parts.add(inner.substring(start, i).strip());
                start = i + 1;
            }
        }
        parts.add(inner.substring(start).strip());
        return parts;
    }

    private static ByodtException malformedBlock(String text, String why) {
        return new ByodtException("malformed block datatype '" + text + "': " + why + " (" + blockGrammar() + ")");
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
