package dev.byodt.compiler.target;

import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.LoweringTarget;
import dev.byodt.compiler.dtype.NativeLibrary;
import dev.byodt.compiler.lower.LibraryFunction;
import dev.byodt.compiler.lower.Program;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Instructions a target has beyond those LLVM knows (the RISC-V P extension), and everything the compiler
 * does differently for them, in one place: datatypes register lowerings for its {@link #loweringTarget()},
 * which call its library; after datatype lowering its passes rewrite the program; the library is linked in
 * where the program calls it, and the calls are checked against the functions it declares.
 */
public interface TargetExtension {
    /** The extension's name ("P"); a target with it is named with it in lower case (riscv64p). */
    String name();

    /** The major opcode its instructions are encoded under, which tells them apart in machine code. */
    int opcode();

    /** The lowerings datatypes register for targets with this extension. */
    LoweringTarget loweringTarget();

    /** Throws a ByodtException naming the datatype when {@code target} cannot compile the chosen datatypes. */
    void check(Target target, DatatypeChoice datatypes);

    /** One line telling the user which chosen datatypes the extension does not serve, if any. */
    Optional<String> coverageNote(Target target, DatatypeChoice datatypes);

    /** The passes that rewrite a program after datatype lowering, in the order they run. */
    List<UnaryOperator<Program>> passes(Target target, DatatypeChoice datatypes);

    /** The library its lowerings and passes call on {@code target}. */
    NativeLibrary library(Target target);

    /** Every function of {@link #library} that its lowerings and passes call on {@code target}, with its type. */
    List<LibraryFunction> functions(Target target);

    /** How executables run under qemu-user, which lacks the extension's instructions, execute them. */
    Emulation emulation();

    /**
     * The extension's part of an executable's harness for qemu-user: a C file of byodt's harness, compiled
     * with {@code defines}, and the files it includes, by the names it includes them by.
     */
    record Emulation(String harnessSource, Map<String, LibrarySource> includes, List<String> defines) {
        public Emulation {
            includes = Map.copyOf(includes);
            defines = List.copyOf(defines);
        }
    }
}
