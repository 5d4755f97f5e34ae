package dev.byodt.compiler.dtype.plugin;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.LowerFunc;
import dev.byodt.runtime.ByodtException;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * A datatype registered by a YAML file beside its C library instead of Java code (docs/bring-your-own-datatype.md
 * describes every key):
 * <pre>
 * name: lns                      # custom[lns]16
 * code: 160                      # a type code of the custom range 129..255
 * widths: [16]
 * library: lns16.c               # .c, .bc or .ll, relative to this file
 * prefix: lns{bits}              # functions are lns16_add, lns16_mul, ... (default NAME{bits})
 * ops: [add, sub, mul, ...]      # lowered as calls of PREFIX_op
 * functions: {exp: {16: my_exp}} # or an explicit function per width (TVM's create_lower_func)
 * accumulation: [float32]        # dtype is always supported
 * </pre>
 * Each mistake is one line naming the file and the key. The library is compiled with -DBYODT_PREFIX,
 * -DBYODT_BITS (the width), the {@code defines} and -DBYODT_OPTION_VALUE=1 for each option's chosen value.
 */
public final class DatatypeDescriptor {
    private static final Set<String> KEYS = Set.of("name", "code", "summary", "widths", "library", "defines", "prefix", "ops",
        "functions", "comparisons", "accumulation", "exact-accumulator-bits", "options");
    private static final List<String> KEY_ORDER = List.of("name", "code", "summary", "widths", "library", "defines", "prefix",
        "ops", "functions", "comparisons", "accumulation", "exact-accumulator-bits", "options");
    /** Far deeper than a descriptor (a mapping of lists of mappings) ever goes. */
    private static final int MAX_NESTING = 64;
    private static final String SIGNED_INTEGER_COMPARISONS = "signed-integer";

    private final Path file;
    private final Map<String, Object> fields;

    private DatatypeDescriptor(Path file, Map<String, Object> fields) {
        this.file = file;
        this.fields = fields;
    }

    /** Reads the descriptor at {@code file} and registers its datatype with {@code registry}. */
    public static void register(Path file, DatatypeRegistry registry) {
        DatatypeDefinition definition = read(file);
        try {
            registry.register(definition);
        } catch (ByodtException e) {
            boolean codeTaken = registry.byCode(definition.code()).isPresent();
            throw new ByodtException(file + ": " + (codeTaken ? "code" : "name") + ": " + e.getMessage());
        }
    }

    /** The definition the descriptor at {@code file} describes. */
    public static DatatypeDefinition read(Path file) {
        if (!Files.isRegularFile(file)) throw new ByodtException("datatype descriptor " + file + ": no such file");
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ByodtException("datatype descriptor " + file + ": cannot read it: " + e.getMessage());
        }
        return new DatatypeDescriptor(file, parse(file, text)).definition();
    }

    private static Map<String, Object> parse(Path file, String text) {
        Object document;
        try {
            LoadSettings settings = LoadSettings.builder().setLabel(file.toString()).build();
            requireShallow(file, settings, text);
            document = new Load(settings).loadFromString(text);
        } catch (MarkedYamlEngineException e) {
            String line = e.getProblemMark().map(m -> " (line " + (m.getLine() + 1) + ")").orElse("");
            throw new ByodtException(file + ": not valid YAML: " + e.getProblem() + line);
        } catch (YamlEngineException e) {
            throw new ByodtException(file + ": not valid YAML: " + e.getMessage().replaceAll("\\s*\\R\\s*", " "));
        } catch (IllegalArgumentException e) {
            // SnakeYAML refuses some malformed tags ("!3%3", found by fuzzing) with this rather than its own exception.
            throw new ByodtException(file + ": not valid YAML: " + e.getMessage());
        }
        if (!(document instanceof Map<?, ?> map)) throw new ByodtException(file + ": expected a mapping of keys (name: ..., code: ...)");
        Map<String, Object> fields = new LinkedHashMap<>();
        map.forEach((k, v) -> fields.put(String.valueOf(k), v));
        return fields;
    }

    /**
     * Refuses a document nested deeper than any descriptor needs before it is composed: SnakeYAML's event
     * parser keeps its own stack, but composing the document recurses once per level and would overflow
     * the thread's stack on a few thousand.
     */
    private static void requireShallow(Path file, LoadSettings settings, String text) {
        int depth = 0;
        for (Event event : new Parse(settings).parseString(text)) {
            switch (event.getEventId()) {
                case MappingStart, SequenceStart -> {
                    if (++depth > MAX_NESTING) {
                        String line = event.getStartMark().map(m -> " (line " + (m.getLine() + 1) + ")").orElse("");
                        throw new ByodtException(file + ": nested more than " + MAX_NESTING + " levels deep" + line);
                    }
                }
                case MappingEnd, SequenceEnd -> depth--;
                default -> { }
            }
        }
    }

    private DatatypeDefinition definition() {
        for (String key : fields.keySet()) {
            if (!KEYS.contains(key)) throw error(key, "unknown key (keys: " + String.join(", ", KEY_ORDER) + ")");
        }
        String name = string("name");
        int code = integer("code", fields.get("code"));
        DatatypeDefinition.Builder b;
        try {
            b = DatatypeDefinition.register(name, code);
        } catch (IllegalArgumentException e) {
            throw error("name", e.getMessage());
        }
        b.origin(file.toString());
        if (fields.containsKey("summary")) b.summary(string("summary"));
        for (int bits : widths()) b.widths(bits);
        Path library = library();
        Map<String, String> defines = defines();
        Map<String, List<String>> options = options();
        options.forEach((option, values) -> b.option(option, values.toArray(String[]::new)));
        b.library(LibrarySource.file(library), i -> {
            List<String> all = new ArrayList<>();
            all.add("BYODT_BITS=" + i.bits());
            defines.forEach((macro, value) -> all.add(macro + "=" + value));
            options.keySet().forEach(o -> all.add(optionMacro(o, i.option(o)) + "=1"));
            return all;
        });
        if (fields.containsKey("prefix")) {
            String prefix = string("prefix");
            b.prefix(i -> prefix.replace("{bits}", String.valueOf(i.bits())));
        }
        for (DatatypeOp op : list("ops", this::operation)) b.registerLibraryOps(op);
        functions().forEach(b::registerOp);
        if (fields.containsKey("comparisons")) registerComparisons(b);
        registerAccumulation(b);
        return b.build();
    }

    private List<Integer> widths() {
        List<Integer> widths = list("widths", (key, v) -> integer(key, v));
        if (widths.isEmpty()) throw error("widths", "lists no width");
        for (int bits : widths) {
            if (bits < 1 || bits > 32) throw error("widths", bits + " is not a width of 1 to 32 bits (values are stored in 8, 16 or 32 bits)");
        }
        return widths;
    }

    private Path library() {
        Path library = resolve(string("library"));
        if (!Files.isRegularFile(library)) throw error("library", "no file " + library);
        return library;
    }

    /** A path relative to the descriptor's folder, kept relative when the descriptor's is, so messages show it as given. */
    private Path resolve(String relative) {
        Path folder = file.getParent();
        return folder == null ? Path.of(relative).normalize() : folder.resolve(relative).normalize();
    }

    private Map<String, String> defines() {
        Map<String, String> defines = new LinkedHashMap<>();
        map("defines").forEach((macro, value) -> {
            if (!macro.matches("[A-Za-z_][A-Za-z0-9_]*")) throw error("defines", "'" + macro + "' is not a C macro name");
            if (value instanceof Map || value instanceof List || value == null) throw error("defines", macro + ": expected a number or a word");
            defines.put(macro, String.valueOf(value));
        });
        return defines;
    }

    private Map<String, List<String>> options() {
        Map<String, List<String>> options = new LinkedHashMap<>();
        map("options").forEach((option, values) -> {
            List<String> choices = values instanceof List<?> l ? l.stream().map(String::valueOf).toList() : List.of();
            if (choices.isEmpty()) throw error("options", option + ": expected a list of values, the first the default");
            options.put(option, choices);
        });
        return options;
    }

    /** -DBYODT_OVERFLOW_WRAP: a macro the C code can test with #ifdef. */
    private static String optionMacro(String option, String value) {
        return ("BYODT_" + option + "_" + value).toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9_]", "_");
    }

    /** functions: {OP: {BITS: FUNCTION, ...}} or {OP: FUNCTION} for every width. */
    private Map<DatatypeOp, LowerFunc> functions() {
        Map<DatatypeOp, LowerFunc> table = new LinkedHashMap<>();
        map("functions").forEach((opName, value) -> {
            DatatypeOp op = operation("functions", opName);
            if (value instanceof String function) {
                table.put(op, site -> site.call(function));
            } else if (value instanceof Map<?, ?> byWidth && !byWidth.isEmpty()) {
                Map<Integer, String> functionByBits = new LinkedHashMap<>();
                byWidth.forEach((bits, function) -> {
                    if (!(function instanceof String f)) throw error("functions", opName + ": expected WIDTH: FUNCTION_NAME");
                    functionByBits.put(integer("functions", bits), f);
                });
                table.put(op, LowerFunc.createLowerFunc(functionByBits));
            } else {
                throw error("functions", opName + ": expected a function name or a mapping of widths to function names");
            }
        });
        return table;
    }

    /** comparisons: signed-integer: the six comparisons inline, as signed compares of the storage integers. */
    private void registerComparisons(DatatypeDefinition.Builder b) {
        String how = string("comparisons");
        if (!how.equals(SIGNED_INTEGER_COMPARISONS)) throw error("comparisons", "'" + how + "' is not " + SIGNED_INTEGER_COMPARISONS);
        b.registerSignedIntegerComparisons();
    }

    private void registerAccumulation(DatatypeDefinition.Builder b) {
        List<AccumulationMode> modes = list("accumulation", (key, v) -> {
            AccumulationMode mode;
            try {
                mode = AccumulationMode.parse(String.valueOf(v));
            } catch (ByodtException e) {
                throw error(key, e.getMessage());
            }
            if (!AccumulationMode.simpleModes().contains(mode)) throw error(key, mode.optionName() + " is for built-in datatypes only (dtype, float32 or exact)");
            return mode;
        });
        b.accumulation(modes.toArray(AccumulationMode[]::new));
        Object accumulatorBits = fields.get("exact-accumulator-bits");
        if (!modes.contains(AccumulationMode.EXACT)) {
            if (accumulatorBits != null) throw error("exact-accumulator-bits", "given, but accumulation does not list exact");
            return;
        }
        if (accumulatorBits == null) throw error("exact-accumulator-bits", "missing: accumulation lists exact");
        Map<Integer, Integer> byWidth = new LinkedHashMap<>();
        if (accumulatorBits instanceof Map<?, ?> m) {
            m.forEach((bits, acc) -> byWidth.put(integer("exact-accumulator-bits", bits), accumulatorWidth(acc)));
        } else {
            int acc = accumulatorWidth(accumulatorBits);
            for (int bits : widths()) byWidth.put(bits, acc);
        }
        for (int bits : widths()) {
            if (!byWidth.containsKey(bits)) throw error("exact-accumulator-bits", "no accumulator width for " + bits + "-bit values");
        }
        b.exactAccumulator(i -> byWidth.get(i.bits()));
    }

    private int accumulatorWidth(Object value) {
        int bits = integer("exact-accumulator-bits", value);
        if (!List.of(64, 128, 256, 512, 1024).contains(bits)) throw error("exact-accumulator-bits", bits + " is not 64, 128, 256, 512 or 1024");
        return bits;
    }

    private DatatypeOp operation(String key, Object name) {
        try {
            return DatatypeOp.parse(String.valueOf(name));
        } catch (IllegalArgumentException e) {
            throw error(key, "no operation '" + name + "' (operations: "
                + DatatypeOp.values().stream().map(DatatypeOp::functionSuffix).collect(Collectors.joining(", ")) + ")");
        }
    }

    // ---- typed access to the fields, each mistake naming the key

    private String string(String key) {
        Object value = fields.get(key);
        if (value == null) throw error(key, "missing");
        if (value instanceof Map || value instanceof List) throw error(key, "expected a single value");
        return String.valueOf(value);
    }

    private int integer(String key, Object value) {
        if (value == null) throw error(key, "missing");
        if (value instanceof Integer i) return i;
        throw error(key, "expected an integer, not '" + value + "'");
    }

    /** A list (a single value counts as a list of one); absent is empty. */
    private <T> List<T> list(String key, BiFunction<String, Object, T> element) {
        Object value = fields.get(key);
        if (value == null) return List.of();
        List<?> values = value instanceof List<?> l ? l : List.of(value);
        List<T> result = new ArrayList<>();
        for (Object v : values) {
            if (v instanceof Map || v instanceof List) throw error(key, "expected a list of values");
            result.add(element.apply(key, v));
        }
        return result;
    }

    private Map<String, Object> map(String key) {
        Object value = fields.get(key);
        if (value == null) return Map.of();
        if (!(value instanceof Map<?, ?> m)) throw error(key, "expected a mapping (KEY: VALUE)");
        Map<String, Object> result = new LinkedHashMap<>();
        m.forEach((k, v) -> result.put(String.valueOf(k), v));
        return result;
    }

    private ByodtException error(String key, String problem) {
        return new ByodtException(file + ": " + key + ": " + problem);
    }
}
