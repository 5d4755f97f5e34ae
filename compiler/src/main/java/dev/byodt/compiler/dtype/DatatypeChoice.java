package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The datatypes a model is compiled in, as the command line chooses them: --dtype for every float tensor,
 * --dtype-map overrides per node or tensor name (globs with * and ?), --accumulate, --fallback float32, and
 * the datatype options (--overflow, --rounding, --sr-bits), all resolved in {@code registry}, and --seed, which
 * stochastic rounding's random bits hash ({@link StochasticRounding}).
 *
 * @param overrides in order; the first whose pattern matches a node's name or one of its output tensors' names wins
 */
public record DatatypeChoice(DatatypeRegistry registry, String datatype, List<Override> overrides,
                             AccumulationMode accumulation, boolean fallbackToFloat32, Map<String, String> options, long seed) {
    private static volatile DatatypeRegistry builtIns;

    /** One --dtype-map entry: PATTERN=DTYPE. */
    public record Override(String pattern, String datatype) {
        public boolean matches(String name) { return glob(pattern).matcher(name).matches(); }

        private static Pattern glob(String pattern) {
            StringBuilder regex = new StringBuilder();
            for (char c : pattern.toCharArray()) {
                switch (c) {
                    case '*' -> regex.append(".*");
                    case '?' -> regex.append('.');
                    default -> regex.append(Pattern.quote(String.valueOf(c)));
                }
            }
            return Pattern.compile(regex.toString());
        }
    }

    public DatatypeChoice {
        overrides = List.copyOf(overrides);
        options = Map.copyOf(options);
    }

    /** Everything in float32, with the built-in registry: what byodt compiles without datatype options. */
    public static DatatypeChoice float32() {
        return new DatatypeChoice(builtInRegistry(), "float32", List.of(), AccumulationMode.DTYPE, false, Map.of(), 0);
    }

    /** The built-in datatypes, registered once per process. */
    public static DatatypeRegistry builtInRegistry() {
        DatatypeRegistry r = builtIns;
        if (r == null) {
            synchronized (DatatypeChoice.class) {
                if (builtIns == null) builtIns = DatatypeRegistry.withBuiltIns();
                r = builtIns;
            }
        }
        return r;
    }

    public DatatypeChoice withDatatype(String name) {
        return new DatatypeChoice(registry, name, overrides, accumulation, fallbackToFloat32, options, seed);
    }

    public DatatypeChoice withOverrides(List<Override> o) {
        return new DatatypeChoice(registry, datatype, o, accumulation, fallbackToFloat32, options, seed);
    }

    public DatatypeChoice withAccumulation(AccumulationMode mode) {
        return new DatatypeChoice(registry, datatype, overrides, mode, fallbackToFloat32, options, seed);
    }

    public DatatypeChoice withFallbackToFloat32(boolean fallback) {
        return new DatatypeChoice(registry, datatype, overrides, accumulation, fallback, options, seed);
    }

    public DatatypeChoice withOptions(Map<String, String> o) {
        return new DatatypeChoice(registry, datatype, overrides, accumulation, fallbackToFloat32, o, seed);
    }

    public DatatypeChoice withSeed(long s) {
        return new DatatypeChoice(registry, datatype, overrides, accumulation, fallbackToFloat32, options, s);
    }

    public DatatypeChoice withRegistry(DatatypeRegistry r) {
        return new DatatypeChoice(r, datatype, overrides, accumulation, fallbackToFloat32, options, seed);
    }

    /** Parses --dtype-map: "conv1=fxp16_13,fc*=custom[posit]16". */
    public static List<Override> parseOverrides(String map) {
        List<Override> parsed = new ArrayList<>();
        if (map == null || map.isBlank()) return parsed;
        // Commas inside brackets belong to a block datatype's spelling (fc*=block[fxp8_6,32,e8m0,rceil]).
        for (String entry : DatatypeName.topLevelParts(map)) {
            int eq = entry.indexOf('=');
            if (eq <= 0 || eq == entry.length() - 1) {
                throw new ByodtException("--dtype-map entry '" + entry + "': expected PATTERN=DTYPE");
            }
            parsed.add(new Override(entry.substring(0, eq).strip(), entry.substring(eq + 1).strip()));
        }
        return parsed;
    }

    /** The datatype name for a node (kernel) and its output tensors. */
    public String datatypeFor(String nodeName, List<String> outputNames) {
        for (Override o : overrides) {
            if (o.matches(nodeName) || outputNames.stream().anyMatch(o::matches)) return o.datatype();
        }
        return datatype;
    }

    /**
     * Resolves every datatype named and checks it supports the accumulation mode, so that a bad choice fails
     * before anything is compiled. The reference datatype (float32) sums in float32 whatever the mode
     * ({@link #accumulationOf}); exact, where nothing but float32 is chosen, would be silently ignored, so it
     * is an error.
     */
    public List<DatatypeInstance> instances() {
        List<DatatypeInstance> all = new ArrayList<>();
        all.add(registry.instance(datatype, options));
        for (Override o : overrides) all.add(registry.instance(o.datatype(), options));
        if (accumulation.equals(AccumulationMode.EXACT) && all.stream().allMatch(i -> i.definition().isReference())) {
            String reference = all.getFirst().toString();
            throw new ByodtException("--accumulate exact needs a custom datatype: " + reference + " sums in " + reference
                + " (choose --dtype, or --accumulate dtype or float32)");
        }
        for (DatatypeInstance i : all) i.requireAccumulation(accumulationOf(i));
        return all;
    }

    /**
     * How {@code instance}'s reductions accumulate: as --accumulate says, but for the reference datatype, whose
     * own sums (mode dtype) are float32 sums, which is what dtype and float32 ask of it.
     */
    public AccumulationMode accumulationOf(DatatypeInstance instance) {
        return instance.definition().isReference() ? AccumulationMode.DTYPE : accumulation;
    }

    public boolean isFloat32Only() {
        return datatype.equals("float32") && overrides.stream().allMatch(o -> o.datatype().equals("float32"));
    }
}
