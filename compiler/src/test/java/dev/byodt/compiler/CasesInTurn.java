package dev.byodt.compiler;

import org.junit.jupiter.params.provider.Arguments;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Test cases crossed with variants (datatypes, accumulation modes), split between the default run and
 * -Pexhaustive: by default each case runs in one variant, taken in turn (case i in variant i mod the number of
 * variants), so every case and every variant is still run and a bug in either still fails the default run;
 * -Pexhaustive runs every other pairing. Each pairing's arguments are the case followed by the variant's.
 */
public final class CasesInTurn {
    private CasesInTurn() {}

    /** Each case in its variant in turn: the default run's pairings. */
    public static Stream<Arguments> eachCaseInOneVariant(List<?> cases, List<Object[]> variants) {
        return pairings(cases, variants, true);
    }

    /** Every pairing {@link #eachCaseInOneVariant} leaves out: -Pexhaustive's. */
    public static Stream<Arguments> everyOtherPairing(List<?> cases, List<Object[]> variants) {
        return pairings(cases, variants, false);
    }

    /** Variants of one argument each. */
    public static List<Object[]> oneArgumentEach(Object... values) {
        return Arrays.stream(values).map(value -> new Object[]{value}).toList();
    }

    private static Stream<Arguments> pairings(List<?> cases, List<Object[]> variants, boolean inTurn) {
        if (cases.size() < variants.size()) {
            throw new IllegalArgumentException(cases.size() + " cases cannot take each of " + variants.size() + " variants in turn");
        }
        List<Arguments> pairings = new ArrayList<>();
        for (int c = 0; c < cases.size(); c++) {
            for (int v = 0; v < variants.size(); v++) {
                if ((v == c % variants.size()) != inTurn) continue;
                Object[] variant = variants.get(v);
                Object[] arguments = new Object[1 + variant.length];
                arguments[0] = cases.get(c);
                System.arraycopy(variant, 0, arguments, 1, variant.length);
                pairings.add(Arguments.of(arguments));
            }
        }
        return pairings.stream();
    }
}
