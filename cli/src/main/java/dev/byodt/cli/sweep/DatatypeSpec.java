package dev.byodt.cli.sweep;

import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.DatatypeName;
import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The datatype list of a sweep (--dtypes): comma-separated entries, each a datatype name that may hold
 * <ul>
 *   <li>a trailing range {@code A..B} (ascending integers): {@code fxp16_8..15} is fxp16_8, fxp16_9, ... fxp16_15,
 *       {@code custom[posit]6..16} is custom[posit]6 ... custom[posit]16;</li>
 *   <li>brace groups, {@code {A..B}} or {@code {x,y,z}}, anywhere: {@code custom[minifloat_e{2..5}]8} is
 *       custom[minifloat_e2]8 ... custom[minifloat_e5]8, {@code custom[posit_es{0,1,3}]8} is custom[posit_es0]8,
 *       custom[posit_es1]8 and custom[posit_es3]8.</li>
 * </ul>
 * Expansion keeps the order written, the leftmost group varying slowest and the trailing range fastest.
 * Every name it yields is one that --dtype takes: it must parse as a {@link DatatypeName}, the registry's
 * grammar (so fp8e4m3 is written custom[fp8e4m3]8, as after --dtype); a datatype given twice, in the same or
 * another spelling (bfloat16, custom[bfloat]16), is kept at its first place. Whether a name is registered is
 * the registry's business, not this parser's. A malformed entry, or a spec that expands to nothing, is a
 * one-line {@link ByodtException} naming the bad part.
 */
public final class DatatypeSpec {
    /** More datatypes than a sweep is meant to hold: almost certainly a typo in a range. */
    public static final int MAX_DATATYPES = 1000;

    private static final Pattern TRAILING_RANGE = Pattern.compile("(.*\\D)(\\d+)\\.\\.(\\d+)");
    private static final Pattern BRACE_RANGE = Pattern.compile("(\\d+)\\.\\.(\\d+)");

    private DatatypeSpec() {}

    /** The names of {@code spec}, block datatypes read as {@link DatatypeName#parseBlock} reads them. */
    public static List<String> expand(String spec) { return expand(spec, DatatypeName::parseBlock); }

    /** The names of {@code spec}, block datatypes read by {@code blocks} (a registry's, which knows plug-ins' names). */
    public static List<String> expand(String spec, Function<String, Optional<BlockDatatypeName>> blocks) {
        Map<Object, String> names = new LinkedHashMap<>();
        for (String entry : entries(spec)) {
            for (String name : expandBraces(entry, entry)) {
                names.putIfAbsent(parsed(name, entry, blocks), name);
                if (names.size() > MAX_DATATYPES) {
                    throw new ByodtException("--dtypes '" + spec + "' expands to more than " + MAX_DATATYPES + " datatypes (at '" + entry + "')");
                }
            }
        }
        if (names.isEmpty()) throw new ByodtException("--dtypes '" + spec + "' names no datatype");
        return List.copyOf(names.values());
    }

    /** The comma-separated entries, splitting only at commas outside braces and brackets. */
    private static List<String> entries(String spec) {
        List<String> entries = new ArrayList<>();
        int depth = 0, start = 0;
        for (int i = 0; i <= spec.length(); i++) {
            char c = i < spec.length() ? spec.charAt(i) : ',';
            if (c == '{' || c == '[') depth++;
            if (c == '}' || c == ']') depth--;
            if (depth < 0) throw new ByodtException("--dtypes: unbalanced '" + c + "' in '" + spec + "'");
            if (c == ',' && depth == 0) {
                String entry = spec.substring(start, Math.min(i, spec.length())).strip();
                boolean onlyEntry = start == 0 && i >= spec.length();
                if (entry.isEmpty() && !onlyEntry) throw new ByodtException("--dtypes: empty entry at position " + (entries.size() + 1) + " of '" + spec + "'");
                if (!entry.isEmpty()) entries.add(entry);
                start = i + 1;
            }
        }
        if (depth != 0) throw new ByodtException("--dtypes: unclosed '{' or '[' in '" + spec + "'");
        return entries;
    }

    private static List<String> expandBraces(String text, String entry) {
        int open = text.indexOf('{');
        if (open < 0) return expandTrailingRange(text, entry);
        int close = text.indexOf('}', open);
        String group = text.substring(open + 1, close);
        if (group.contains("{")) throw new ByodtException("--dtypes: nested braces in '" + entry + "'");
        List<String> names = new ArrayList<>();
        for (String choice : choices(group, entry)) {
            names.addAll(expandBraces(text.substring(0, open) + choice + text.substring(close + 1), entry));
        }
        return names;
    }

    private static List<String> choices(String group, String entry) {
        Matcher range = BRACE_RANGE.matcher(group);
        if (range.matches()) return numbers(range.group(1), range.group(2), entry);
        if (group.contains("..")) throw new ByodtException("--dtypes: '{" + group + "}' in '" + entry + "' is not a range of integers A..B");
        List<String> choices = new ArrayList<>();
        for (String choice : group.split(",", -1)) {
            if (choice.isBlank()) throw new ByodtException("--dtypes: '{" + group + "}' in '" + entry + "' has an empty choice");
            choices.add(choice.strip());
        }
        return choices;
    }

    private static List<String> expandTrailingRange(String text, String entry) {
        Matcher range = TRAILING_RANGE.matcher(text);
        if (range.matches()) {
            String prefix = range.group(1);
            return numbers(range.group(2), range.group(3), entry).stream().map(n -> prefix + n).toList();
        }
        if (text.contains("..")) throw new ByodtException("--dtypes: '" + entry + "' has a range that is not at the end or not A..B of integers");
        return List.of(text);
    }

    private static List<String> numbers(String from, String to, String entry) {
        long a, b;
        try {
            a = Long.parseLong(from);
            b = Long.parseLong(to);
        } catch (NumberFormatException e) {
            throw new ByodtException("--dtypes: the range " + from + ".." + to + " in '" + entry + "' is too large");
        }
        if (a > b) throw new ByodtException("--dtypes: the range " + from + ".." + to + " in '" + entry + "' runs backwards");
        if (b - a >= MAX_DATATYPES) throw new ByodtException("--dtypes: the range " + from + ".." + to + " in '" + entry + "' has more than " + MAX_DATATYPES + " values");
        List<String> numbers = new ArrayList<>();
        for (long n = a; n <= b; n++) numbers.add(Long.toString(n));
        return numbers;
    }

    /**
     * The name as --dtype reads it (a block datatype's, or a scalar one's); a malformed one is the parser's own
     * error, with the entry it came from.
     */
    private static Object parsed(String name, String entry, Function<String, Optional<BlockDatatypeName>> blocks) {
        try {
            Optional<BlockDatatypeName> block = blocks.apply(name);
            return block.isPresent() ? block.get() : DatatypeName.parse(name);
        } catch (ByodtException e) {
            throw new ByodtException("--dtypes: " + (name.equals(entry) ? "" : "in '" + entry + "', ") + e.getMessage(), e);
        }
    }
}
