package dev.byodt.compiler.dtype;

import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The NAME a datatype registers: a plain name ({@code posit}) or one with an integer parameter in a range,
 * written {@code minifloat_e{E:2..8}} or {@code fxp_{P:0..31}}, so that one registration covers a family of
 * names (every exponent width, every binary point position).
 */
public record NamePattern(String prefix, String parameter, int min, int max) {
    private static final Pattern PARAMETERIZED = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\{([A-Za-z]+):([0-9]+)\\.\\.([0-9]+)}");
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    public static NamePattern parse(String pattern) {
        if (PLAIN.matcher(pattern).matches()) return new NamePattern(pattern, null, 0, 0);
        Matcher m = PARAMETERIZED.matcher(pattern);
        if (!m.matches()) {
            throw new IllegalArgumentException("datatype name '" + pattern + "': expected NAME or NAME{P:MIN..MAX}");
        }
        int min = Integer.parseInt(m.group(3)), max = Integer.parseInt(m.group(4));
        if (min > max) throw new IllegalArgumentException("datatype name '" + pattern + "': empty range");
        return new NamePattern(m.group(1), m.group(2), min, max);
    }

    public boolean hasParameter() { return parameter != null; }

    /**
     * The parameter's value when {@code name} is one of this pattern's names (0 for a plain name), or empty.
     * Leading zeros are refused so that every datatype has exactly one spelling.
     */
    public OptionalInt match(String name) {
        if (!hasParameter()) return name.equals(prefix) ? OptionalInt.of(0) : OptionalInt.empty();
        if (!name.startsWith(prefix)) return OptionalInt.empty();
        String digits = name.substring(prefix.length());
        if (!digits.matches("0|[1-9][0-9]{0,8}")) return OptionalInt.empty();
        int value = Integer.parseInt(digits);
        return value >= min && value <= max ? OptionalInt.of(value) : OptionalInt.empty();
    }

    /** Whether some name matches both patterns (two registrations would then claim it). */
    public boolean overlaps(NamePattern other) {
        if (!hasParameter() && !other.hasParameter()) return prefix.equals(other.prefix);
        if (!hasParameter()) return other.match(prefix).isPresent();
        if (!other.hasParameter()) return match(other.prefix).isPresent();
        if (!prefix.equals(other.prefix)) {
            // Different prefixes overlap only if one prefix plus digits spells the other: "a_{P}" and "a_1{Q}".
            return prefix.startsWith(other.prefix) || other.prefix.startsWith(prefix);
        }
        return min <= other.max && other.min <= max;
    }

    @Override
    public String toString() {
        return hasParameter() ? prefix + "{" + parameter + ":" + min + ".." + max + "}" : prefix;
    }
}
