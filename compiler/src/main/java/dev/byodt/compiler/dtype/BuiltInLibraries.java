package dev.byodt.compiler.dtype;

import java.util.List;

/**
 * The C libraries of byodt's built-in datatype families: the shared double-precision routines followed by the
 * family's own file, compiled as one translation unit.
 */
public final class BuiltInLibraries {
    /** exp, log, tanh, sigmoid, erf, pow in double (and their bit helpers), used by every built-in family. */
    public static final String DOUBLE_MATH = "dev/byodt/datatypes/common/double_math.c";

    private BuiltInLibraries() {}

    /** The resources of the family whose own file is {@code familyResource}, in compilation order. */
    public static List<String> parts(String familyResource) { return List.of(DOUBLE_MATH, familyResource); }

    public static LibrarySource of(String familyResource) { return LibrarySource.resources(parts(familyResource)); }
}
