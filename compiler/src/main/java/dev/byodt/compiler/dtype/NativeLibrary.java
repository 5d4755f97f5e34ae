package dev.byodt.compiler.dtype;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The library one datatype instance links: its source and the -D parameters it is compiled with
 * ({@code POSIT_N=16}, {@code BYODT_PREFIX=posit16es2}); precompiled bitcode and IR ignore the parameters.
 *
 * @param origin the descriptor file or plug-in jar that registered the datatype, so that errors about the
 *               library say where to fix them; empty for byodt's own libraries
 */
public record NativeLibrary(LibrarySource source, List<String> defines, String origin) {
    public NativeLibrary {
        defines = List.copyOf(defines);
    }

    public static NativeLibrary of(LibrarySource source) { return new NativeLibrary(source, List.of(), ""); }

    /** The clang flags that set the parameters. */
    public List<String> compilerFlags() { return defines.stream().map(d -> "-D" + d).toList(); }

    /** posit.c (-DPOSIT_N=16 -DPOSIT_ES=2), or lns16.c (-DBYODT_PREFIX=lns16) of lns16.yaml: what error messages call this library. */
    @Override
    public String toString() {
        return source.displayName() + (defines.isEmpty() ? "" : defines.stream().map(d -> "-D" + d).collect(Collectors.joining(" ", " (", ")")))
            + (origin.isEmpty() ? "" : " of " + origin);
    }
}
