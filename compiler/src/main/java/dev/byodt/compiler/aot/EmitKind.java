package dev.byodt.compiler.aot;

import dev.byodt.runtime.ByodtException;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What {@code --emit} writes: LLVM IR text, assembly, an object, a shared library or a static executable. */
public enum EmitKind {
    LLVM("llvm", ".ll"),
    ASM("asm", ".s"),
    OBJ("obj", ".o"),
    SO("so", ".so"),
    EXE("exe", "");

    private final String optionName;
    private final String fileExtension;

    EmitKind(String optionName, String fileExtension) {
        this.optionName = optionName;
        this.fileExtension = fileExtension;
    }

    /** The name on the command line: llvm, asm, obj, so or exe. */
    public String optionName() { return optionName; }

    /** The usual file name ending of this kind of output (empty for executables). */
    public String fileExtension() { return fileExtension; }

    /** Whether a C header describing the entry point is written beside the output. */
    public boolean writesHeader() { return this == OBJ || this == SO; }

    public static EmitKind parse(String text) {
        String wanted = text.strip().toLowerCase(Locale.ROOT);
        for (EmitKind kind : values()) {
            if (kind.optionName.equals(wanted)) return kind;
        }
        throw new ByodtException("unknown output kind '" + text + "': expected one of "
            + Arrays.stream(values()).map(EmitKind::optionName).collect(Collectors.joining("|")));
    }

    @Override
    public String toString() { return optionName; }
}
