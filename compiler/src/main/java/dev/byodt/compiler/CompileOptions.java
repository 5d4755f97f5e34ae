package dev.byodt.compiler;

import dev.byodt.compiler.target.Target;

/**
 * How to compile a model.
 *
 * @param target      the machine to generate code for
 * @param entrySymbol the name of the exported C function that runs the model
 * @param datatype    the datatype of every real-valued tensor ("float32" for now)
 * @param optimize    run LLVM's O3 pipeline; without it the module is left as generated, for reading
 */
public record CompileOptions(Target target, String entrySymbol, String datatype, boolean optimize) {
    public static final String DEFAULT_ENTRY = "byodt_model";

    /** float32, optimized, for this machine, entry {@value #DEFAULT_ENTRY}. */
    public static CompileOptions host() {
        return new CompileOptions(Target.host(), DEFAULT_ENTRY, "float32", true);
    }

    public CompileOptions withTarget(Target t) { return new CompileOptions(t, entrySymbol, datatype, optimize); }

    public CompileOptions withEntrySymbol(String s) { return new CompileOptions(target, s, datatype, optimize); }

    public CompileOptions withDatatype(String d) { return new CompileOptions(target, entrySymbol, d, optimize); }

    public CompileOptions withOptimize(boolean o) { return new CompileOptions(target, entrySymbol, datatype, o); }
}
