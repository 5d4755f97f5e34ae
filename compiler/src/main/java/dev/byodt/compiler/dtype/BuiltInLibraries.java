package dev.byodt.compiler.dtype;

import java.util.ArrayList;
import java.util.List;

/**
 * The C libraries of byodt's built-in datatype families: the shared double-precision routines followed by the
 * family's own file, compiled as one translation unit.
 */
public final class BuiltInLibraries {
    /** exp, log, tanh, sigmoid, erf, pow in double (and their bit helpers), used by every built-in family. */
    public static final String DOUBLE_MATH = "dev/byodt/datatypes/common/double_math.c";
    /** The --rounding modes' C names and the one rule each applies to a cut magnitude, for the families that offer them. */
    public static final String ROUNDING = "dev/byodt/datatypes/common/rounding.c";

    private BuiltInLibraries() {}

    /**
     * The library of the family whose own file is {@code familyResource}, which names it: the shared parts, that
     * file, then {@code extensions} (files that build on it, such as posit_x64.c's vector variants).
     */
    public static LibrarySource of(String familyResource, String... extensions) {
        List<String> parts = new ArrayList<>(List.of(DOUBLE_MATH, ROUNDING, familyResource));
        parts.addAll(List.of(extensions));
        return LibrarySource.resources(familyResource, parts);
    }
}
