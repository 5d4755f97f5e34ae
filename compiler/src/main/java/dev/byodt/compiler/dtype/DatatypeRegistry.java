package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * Every datatype byodt can compile to, by NAME and type code. Registration checks that no two datatypes
 * share a code or a name; resolving a name the registry does not know lists what it does know.
 */
public final class DatatypeRegistry {
    private final List<DatatypeDefinition> definitions = new ArrayList<>();
    /** The block datatypes plug-ins declared, by name, in the order declared. */
    private final Map<String, NamedBlock> blocks = new LinkedHashMap<>();
    /** While a plug-in jar registers its datatypes: the jar, recorded as their origin. */
    private String registeringFrom = "";

    /** An empty registry (tests); see {@link #withBuiltIns()}. */
    public DatatypeRegistry() {}

    /** float32 and the datatypes of every {@link DatatypePlugin} on byodt's own class path. */
    public static DatatypeRegistry withBuiltIns() {
        DatatypeRegistry registry = new DatatypeRegistry();
        registry.loadPlugins(DatatypeRegistry.class.getClassLoader());
        return registry;
    }

    /** Registers the datatypes of every plug-in {@code loader} finds. */
    public void loadPlugins(ClassLoader loader) {
        for (DatatypePlugin plugin : ServiceLoader.load(DatatypePlugin.class, loader)) plugin.registerWith(this);
    }

    /**
     * Lets {@code plugin} register its datatypes, recording {@code origin} (its jar) as where each came from
     * unless the plug-in said otherwise.
     */
    public void registerFrom(String origin, DatatypePlugin plugin) {
        registeringFrom = origin;
        try {
            plugin.registerWith(this);
        } finally {
            registeringFrom = "";
        }
    }

    /**
     * Adds a definition; a code outside 129..255 (but for the reference datatype's), a code or name already
     * taken, or a second reference datatype is an error.
     */
    public DatatypeRegistry register(DatatypeDefinition registered) {
        DatatypeDefinition definition = registered.origin().isEmpty() && !registeringFrom.isEmpty()
            ? registered.withOrigin(registeringFrom) : registered;
        int code = definition.code();
        if (!definition.isReference() && (code < DatatypeDefinition.FIRST_CUSTOM_CODE || code > DatatypeDefinition.LAST_CUSTOM_CODE)) {
            throw new ByodtException("datatype " + definition.name() + ": type code " + code + " is outside the custom range "
                + DatatypeDefinition.FIRST_CUSTOM_CODE + ".." + DatatypeDefinition.LAST_CUSTOM_CODE);
        }
        for (DatatypeDefinition d : definitions) {
            if (d.code() == code) {
                throw new ByodtException("datatype " + definition.name() + ": type code " + code + " is already registered to " + describe(d));
            }
            if (d.namePattern().overlaps(definition.namePattern())) {
                throw new ByodtException("datatype " + definition.name() + ": the name clashes with the registered " + describe(d));
            }
            if (d.isReference() && definition.isReference()) {
                throw new ByodtException("datatype " + definition.name() + ": the reference datatype is already " + describe(d));
            }
        }
        definitions.add(definition);
        return this;
    }

    /**
     * Declares the block datatype {@code format} under {@code name}, so that --dtype, --dtype-map and sweep's
     * --dtypes take the name as they take mxint8: its element and scale must be registered already, with grids
     * of values (DatatypeDefinition.Builder#valueGrid), the element signed and holding 0. A name that is not a
     * plain word, or that a built-in block datatype, another declared one or a scalar spelling has, is an error.
     */
    public DatatypeRegistry registerBlock(String name, BlockDatatypeName format) {
        String problem = !name.matches("[A-Za-z_][A-Za-z0-9_]*") ? "not a name of letters, digits and _"
            : BlockDatatypeName.builtIns().containsKey(name) ? "the name of a built-in block datatype"
            : blocks.containsKey(name) ? "already the name of the block datatype " + blocks.get(name).describe()
            : isScalarSpelling(name) ? "a scalar datatype's spelling" : null;
        if (problem != null) throw new ByodtException("block datatype " + name + ": " + problem);
        try {
            BlockFormat.resolve(format, this);
        } catch (ByodtException e) {
            throw new ByodtException("block datatype " + name + " (" + format + "): " + e.getMessage().replaceFirst("^block datatype \\S+: ", ""));
        }
        blocks.put(name, new NamedBlock(name, format, registeringFrom));
        return this;
    }

    /** A block datatype a plug-in declared: its name, what it is, and the jar or descriptor it came from (empty for code). */
    public record NamedBlock(String name, BlockDatatypeName format, String origin) {
        /** "mxint6 (from int6.yaml)". */
        public String describe() { return origin.isEmpty() ? name : name + " (from " + origin + ")"; }
    }

    /** The block datatypes plug-ins declared, in the order declared. */
    public List<NamedBlock> namedBlocks() { return List.copyOf(blocks.values()); }

    /**
     * The block datatype {@code text} names: one a plug-in declared, else a built-in one or the general spelling
     * ({@link DatatypeName#parseBlock}); empty when it is no block datatype.
     */
    public Optional<BlockDatatypeName> parseBlock(String text) {
        NamedBlock named = blocks.get(text.strip());
        return named != null ? Optional.of(named.format()) : DatatypeName.parseBlock(text);
    }

    /**
     * {@code text}, or the general spelling block[...] of the block datatype a plug-in declared under that name,
     * for code that reads block datatypes without a registry (a --dtype-map entry's datatype).
     */
    public String spelledOut(String text) {
        NamedBlock named = blocks.get(text.strip());
        return named == null ? text : named.format().toString();
    }

    private static boolean isScalarSpelling(String name) {
        try {
            DatatypeName.parse(name);
            return true;
        } catch (ByodtException e) {
            return false;
        }
    }

    /** The definitions in type code order (float32 first), whatever order plug-ins were found in. */
    public List<DatatypeDefinition> definitions() {
        List<DatatypeDefinition> sorted = new ArrayList<>(definitions);
        sorted.sort(java.util.Comparator.comparingInt(DatatypeDefinition::code));
        return Collections.unmodifiableList(sorted);
    }

    public Optional<DatatypeDefinition> byCode(int code) {
        return definitions.stream().filter(d -> d.code() == code).findFirst();
    }

    /** The reference datatype (float32), which programs exchange tensors in and fall back to. */
    public DatatypeInstance reference() {
        DatatypeDefinition d = definitions.stream().filter(DatatypeDefinition::isReference).findFirst()
            .orElseThrow(() -> new ByodtException("no reference datatype is registered (byodt's is float32); registered: " + describe()));
        return instance(new DatatypeName(d.name(), d.widths().iterator().next(), 1), Map.of());
    }

    /** The instance a --dtype text names, with the user's option values (overflow=wrap, ...). */
    public DatatypeInstance instance(String text, Map<String, String> options) {
        DatatypeName name;
        try {
            name = DatatypeName.parse(text);
        } catch (ByodtException e) {
            throw new ByodtException(e.getMessage() + "; registered: " + describe(), e);
        }
        return instance(name, options);
    }

    public DatatypeInstance instance(DatatypeName name, Map<String, String> options) {
        for (DatatypeDefinition d : definitions) {
            Optional<DatatypeInstance> instance = d.instance(name, options);
            if (instance.isPresent()) return instance.get();
        }
        throw new ByodtException("unknown datatype '" + name + "'; registered: " + describe());
    }

    /** "posit", or "lns (from lns16.yaml)" for a user's datatype. */
    private static String describe(DatatypeDefinition d) {
        return d.origin().isEmpty() ? d.name() : d.name() + " (from " + d.origin() + ")";
    }

    /** "float32 (32), posit (2..32), fxp_{P:0..31} (8, 16, 32), ...": names and widths, for error messages. */
    public String describe() {
        return definitions().stream().map(d -> d.name() + " (" + d.describeWidths() + ")").collect(Collectors.joining(", "));
    }
}
