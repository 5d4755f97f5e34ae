package dev.byodt.compiler.dtype.plugin;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.DatatypeName;
import dev.byodt.compiler.dtype.ValueGrid;
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
 * grid: {fraction-bits: 4, min-exponent: 0, largest: 1.9375}   # the values, for a block format's element
 * blocks: {mxint6: {size: 32, scale: e8m0, rule: floor}}       # block datatypes over custom[NAME]BITS
 * </pre>
 * Each mistake is one line naming the file and the key. The library is compiled with -DBYODT_PREFIX,
 * -DBYODT_BITS (the width), the {@code defines} and -DBYODT_OPTION_VALUE=1 for each option's chosen value.
 */
public final class DatatypeDescriptor {
    private static final Set<String> KEYS = Set.of("name", "code", "summary", "widths", "library", "defines", "prefix", "ops",
        "functions", "comparisons", "accumulation", "exact-accumulator-bits", "options", "grid", "blocks");
    private static final List<String> KEY_ORDER = List.of("name", "code", "summary", "widths", "library", "defines", "prefix",
        "ops", "functions", "comparisons", "accumulation", "exact-accumulator-bits", "options", "grid", "blocks");
    private static final List<String> GRID_KEYS = List.of("fraction-bits", "min-exponent", "largest", "signed", "zero");
    private static final List<String> BLOCK_KEYS = List.of("size", "scale", "rule", "tensor-scale");
    /** Far deeper than a descriptor (a mapping of lists of mappings) ever goes. */
    private static final int MAX_NESTING = 64;
    private static final String SIGNED_INTEGER_COMPARISONS = "signed-integer";

    private final Path file;
    private final Map<String, Object> fields;

    private DatatypeDescriptor(Path file, Map<String, Object> fields) {
        this.file = file;
        this.fields = fields;
    }

    /** Reads the descriptor at {@code file} and registers its datatype, then its block datatypes, with {@code registry}. */
    public static void register(Path file, DatatypeRegistry registry) {
        DatatypeDescriptor descriptor = of(file);
        DatatypeDefinition definition = descriptor.definition();
        try {
            registry.register(definition);
        } catch (ByodtException e) {
            boolean codeTaken = registry.byCode(definition.code()).isPresent();
            throw new ByodtException(file + ": " + (codeTaken ? "code" : "name") + ": " + e.getMessage());
        }
        descriptor.blocks().forEach((name, format) -> {
            try {
                registry.registerFrom(file.toString(), r -> r.registerBlock(name, format));
            } catch (ByodtException e) {
                throw error(file, "blocks", e.getMessage());
            }
        });
    }

    /** The definition the descriptor at {@code file} describes. */
    public static DatatypeDefinition read(Path file) {
        DatatypeDescriptor descriptor = of(file);
        DatatypeDefinition definition = descriptor.definition();
        descriptor.blocks();
        return definition;
    }

    private static DatatypeDescriptor of(Path file) {
        if (!Files.isRegularFile(file)) throw new ByodtException("datatype descriptor " + file + ": no such file");
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ByodtException("datatype descriptor " + file + ": cannot read it: " + e.getMessage());
        }
        return new DatatypeDescriptor(file, parse(file, text));
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
        if (fields.containsKey("grid")) {
            ValueGrid grid = grid();
            b.valueGrid(i -> grid);
        }
        return b.build();
    }

    /** The datatype's only width, which a grid and block datatypes are of. */
    private int onlyWidth(String key) {
        List<Integer> widths = widths();
        if (widths.size() != 1) throw error(key, "describes the values of one width, and widths lists " + widths);
        return widths.getFirst();
    }

    /** grid: the datatype's finite values as a {@link ValueGrid}, so that it can be a block datatype's element or scale. */
    private ValueGrid grid() {
        onlyWidth("grid");
        Map<String, Object> grid = map("grid");
        for (String key : grid.keySet()) {
            if (!GRID_KEYS.contains(key)) throw error("grid", "unknown key " + key + " (keys: " + String.join(", ", GRID_KEYS) + ")");
        }
        int fractionBits = integer("grid: fraction-bits", grid.get("fraction-bits"));
        int minExponent = integer("grid: min-exponent", grid.get("min-exponent"));
        Object largest = grid.get("largest");
        if (!(largest instanceof Number n)) throw error("grid", "largest: expected a number, not '" + largest + "'");
        try {
            return new ValueGrid(fractionBits, minExponent, n.doubleValue(), flag(grid, "signed"), flag(grid, "zero"));
        } catch (IllegalArgumentException e) {
            throw error("grid", "not a grid of values: " + e.getMessage() + " (fraction-bits 0..52, largest positive and finite)");
        }
    }

    private boolean flag(Map<String, Object> grid, String key) {
        Object value = grid.getOrDefault(key, true);
        if (!(value instanceof Boolean b)) throw error("grid", key + ": expected true or false, not '" + value + "'");
        return b;
    }

    /** blocks: {NAME: {size: N, scale: SCALE, rule: RULE, tensor-scale: BOOL}}, each over custom[NAME]BITS. */
    private Map<String, BlockDatatypeName> blocks() {
        Map<String, BlockDatatypeName> blocks = new LinkedHashMap<>();
        Map<String, Object> declared = map("blocks");
        if (declared.isEmpty()) return blocks;
        if (!fields.containsKey("grid")) throw error("blocks", "the elements need a grid: of values to round onto");
        DatatypeName element = new DatatypeName(string("name"), onlyWidth("blocks"), 1);
        declared.forEach((name, value) -> {
            if (!(value instanceof Map<?, ?> m)) throw error("blocks", name + ": expected {size: N, scale: SCALE, rule: RULE}");
            Map<String, Object> block = new LinkedHashMap<>();
            m.forEach((k, v) -> block.put(String.valueOf(k), v));
            for (String key : block.keySet()) {
                if (!BLOCK_KEYS.contains(key)) throw error("blocks", name + ": unknown key " + key + " (keys: " + String.join(", ", BLOCK_KEYS) + ")");
            }
            int size = integer("blocks: " + name + ": size", block.get("size"));
            if (size < 1) throw error("blocks", name + ": size " + size + " is not a number of elements from 1");
            Object tensorScale = block.getOrDefault("tensor-scale", false);
            if (!(tensorScale instanceof Boolean tensor)) throw error("blocks", name + ": tensor-scale: expected true or false");
            String scale = String.valueOf(block.get("scale")), rule = String.valueOf(block.get("rule"));
            if (block.get("scale") == null || block.get("rule") == null) throw error("blocks", name + ": scale and rule are required");
            try {
                // The general spelling's parser reads the scale (a bare NAME is custom[NAME]8) and the rule.
                BlockDatatypeName parsed = DatatypeName.parseBlock("block[" + element + "," + size + "," + scale + "," + rule + "]").orElseThrow();
                blocks.put(name, new BlockDatatypeName(element, size, parsed.scale(), parsed.rule(), tensor));
            } catch (ByodtException e) {
                throw error("blocks", name + ": " + e.getMessage());
            }
        });
        return blocks;
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

    private ByodtException error(String key, String problem) { return error(file, key, problem); }

    private static ByodtException error(Path file, String key, String problem) {
        return new ByodtException(file + ": " + key + ": " + problem);
    }
}
