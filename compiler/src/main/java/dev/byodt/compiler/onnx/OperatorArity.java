package dev.byodt.compiler.onnx;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * How many inputs and outputs each ONNX operator takes, by operator set version, as ONNX's schemas say
 * (operator-arity.tsv, written by scripts/operator-arity). It covers every operator of the default domain,
 * not only those byodt implements, so that operators added to byodt are checked without a change here.
 */
final class OperatorArity {
    /** A maximum of -1 means no limit (variadic inputs such as Concat's, or Split's outputs). */
    record Arity(int minInputs, int maxInputs, int minOutputs, int maxOutputs) {}

    private static final String RESOURCE = "operator-arity.tsv";
    private static final Map<String, NavigableMap<Long, Arity>> BY_OPERATOR = load();

    private OperatorArity() {}

    /** The arity of {@code opType} in operator set {@code opset}, or null when ONNX has no such operator there. */
    static Arity of(String opType, long opset) {
        NavigableMap<Long, Arity> versions = BY_OPERATOR.get(opType);
        if (versions == null) return null;
        Map.Entry<Long, Arity> entry = versions.floorEntry(opset);
        return entry == null ? null : entry.getValue();
    }

    /** Whether ONNX has an operator of this name in some operator set. */
    static boolean knows(String opType) { return BY_OPERATOR.containsKey(opType); }

    private static Map<String, NavigableMap<Long, Arity>> load() {
        Map<String, NavigableMap<Long, Arity>> table = new HashMap<>();
        try (InputStream in = OperatorArity.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the build");
            BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.isBlank() || line.startsWith("#")) continue;
                String[] f = line.split("\t");
                table.computeIfAbsent(f[0], k -> new TreeMap<>()).put(Long.parseLong(f[1]), new Arity(
                    Integer.parseInt(f[2]), Integer.parseInt(f[3]), Integer.parseInt(f[4]), Integer.parseInt(f[5])));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        return table;
    }
}
