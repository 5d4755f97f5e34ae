package dev.byodt.compiler.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The ONNX node cases byodt is known to pass, pinned in expected-passing.txt (written by scripts/pin-conformance),
 * so that a case which turns unsupported, say because an operator was lost, fails the build instead of moving
 * from one count to another. Cases that pass without being on the list are only reported: operators are added
 * in parallel, and whoever makes a case pass pins it.
 */
public final class ExpectedPassing {
    private static final String RESOURCE = "expected-passing.txt";

    private ExpectedPassing() {}

    /** The pinned case names: every line of the list but comments and blank lines. */
    public static Set<String> cases() {
        try (InputStream in = ExpectedPassing.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException(RESOURCE + " is not on the test class path");
            Set<String> names = new TreeSet<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String name = line.strip();
                if (!name.isEmpty() && !name.startsWith("#")) names.add(name);
            }
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The pinned cases missing from {@code passing}, in name order. */
    public static List<String> missingFrom(Collection<String> passing) {
        Set<String> missing = new TreeSet<>(cases());
        missing.removeAll(passing);
        return List.copyOf(missing);
    }

    /** The cases of {@code passing} that are not pinned, in name order. */
    public static List<String> unpinnedIn(Collection<String> passing) {
        Set<String> unpinned = new TreeSet<>(passing);
        unpinned.removeAll(cases());
        return List.copyOf(unpinned);
    }
}
