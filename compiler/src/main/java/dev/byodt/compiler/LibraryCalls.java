package dev.byodt.compiler;

import dev.byodt.compiler.codegen.LibraryLinker;
import dev.byodt.compiler.dtype.LoweringLog;
import dev.byodt.compiler.dtype.NativeLibrary;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.lower.LibraryFunction;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ByodtException;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The library functions a lowered program calls, each with the LLVM type the calls give it, checked against
 * the libraries before any code is generated: a function no library defines, or one whose type differs from
 * what the lowering calls it as, is an error naming the function, the library and the operation. A function
 * the target's extension declares ({@link LibraryFunction} constants) is expected with its declared type,
 * and a call that gives it another is an error too.
 */
final class LibraryCalls {
    private final Map<String, String> typeOfFunction;
    /** For each declared function some call gives another type, what is wrong. */
    private final Map<String, String> miscalled;

    private LibraryCalls(Map<String, String> typeOfFunction, Map<String, String> miscalled) {
        this.typeOfFunction = typeOfFunction;
        this.miscalled = miscalled;
    }

    /** The calls of {@code program}, where {@code declared} are the functions the target's extension declares. */
    static LibraryCalls of(Program program, List<LibraryFunction> declared) {
        Map<String, LibraryFunction> declaredByName = new LinkedHashMap<>();
        declared.forEach(f -> declaredByName.put(f.name(), f));
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, String> miscalled = new LinkedHashMap<>();
        for (Kernel k : program.kernels()) {
            KernelWalker.forEachExpr(k.body(), e -> {
                if (!(e instanceof Expr.Call c)) return;
                String called = LibraryFunction.calledBy(c).llvmType();
                LibraryFunction declaration = declaredByName.get(c.function());
                if (declaration != null && !declaration.llvmType().equals(called)) {
                    miscalled.putIfAbsent(c.function(), c.function() + " is declared as " + declaration.llvmType() + ", but "
                        + k.name() + " calls it as " + called);
                }
                types.putIfAbsent(c.function(), declaration != null ? declaration.llvmType() : called);
            });
        }
        return new LibraryCalls(types, miscalled);
    }

    boolean isEmpty() { return typeOfFunction.isEmpty(); }

    /** Whether {@code library} defines a function the program calls (otherwise it need not be linked). */
    boolean anyDefinedBy(LLVMModuleRef library) {
        return LibraryLinker.definedFunctions(library).keySet().stream().anyMatch(typeOfFunction::containsKey);
    }

    void check(List<LLVMModuleRef> libraries, LoweringLog log, Map<String, NativeLibrary> libraryOfDatatype) {
        Map<String, String> defined = new LinkedHashMap<>();
        for (LLVMModuleRef library : libraries) LibraryLinker.definedFunctions(library).forEach(defined::putIfAbsent);
        List<String> problems = new ArrayList<>(miscalled.values());
        typeOfFunction.forEach((function, expected) -> {
            LoweringLog.Purpose purpose = log.purposeOf(function);
            String library = purpose == null || !libraryOfDatatype.containsKey(purpose.datatype())
                ? "the datatype libraries" : "the datatype library " + libraryOfDatatype.get(purpose.datatype());
            String use = purpose == null ? "" : " (" + purpose + ")";
            String actual = defined.get(function);
            if (actual == null) problems.add(library + " defines no function " + function + use);
            else if (!actual.equals(expected)) {
                problems.add(function + " in " + library.replaceFirst("^the datatype librar(y|ies) ", "") + " has type " + actual
                    + ", but the lowering" + use + " calls it as " + expected);
            }
        });
        if (!problems.isEmpty()) throw new ByodtException(String.join("; ", problems));
    }
}
