package dev.byodt.compiler;

import dev.byodt.compiler.codegen.LibraryLinker;
import dev.byodt.compiler.dtype.LoweringLog;
import dev.byodt.compiler.dtype.NativeLibrary;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.MachineTypes;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ByodtException;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The library functions a lowered program calls, each with the LLVM type the calls give it, checked against
 * the libraries before any code is generated: a function no library defines, or one whose type differs from
 * what the lowering calls it as, is an error naming the function, the library and the operation.
 */
final class LibraryCalls {
    private final Map<String, String> typeOfFunction;

    private LibraryCalls(Map<String, String> typeOfFunction) {
        this.typeOfFunction = typeOfFunction;
    }

    static LibraryCalls of(Program program) {
        Map<String, String> types = new LinkedHashMap<>();
        for (Kernel k : program.kernels()) {
            KernelWalker.forEachExpr(k.body(), e -> {
                if (e instanceof Expr.Call c) types.putIfAbsent(c.function(), llvmType(c));
            });
        }
        return new LibraryCalls(types);
    }

    boolean isEmpty() { return typeOfFunction.isEmpty(); }

    /** Whether {@code library} defines a function the program calls (otherwise it need not be linked). */
    boolean anyDefinedBy(LLVMModuleRef library) {
        return LibraryLinker.definedFunctions(library).keySet().stream().anyMatch(typeOfFunction::containsKey);
    }

    void check(List<LLVMModuleRef> libraries, LoweringLog log, Map<String, NativeLibrary> libraryOfDatatype) {
        Map<String, String> defined = new LinkedHashMap<>();
        for (LLVMModuleRef library : libraries) LibraryLinker.definedFunctions(library).forEach(defined::putIfAbsent);
        List<String> problems = new ArrayList<>();
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

    /** "i16 (i16, i16)", "void (ptr, i16, i16)": the function type a call implies, as LLVM prints it. */
    private static String llvmType(Expr.Call c) {
        boolean inPlace = c.passing() == Expr.Call.Passing.UPDATES_FIRST_IN_PLACE;
        List<String> params = new ArrayList<>();
        for (int i = 0; i < c.args().size(); i++) {
            boolean byPointer = i == 0 && c.passing() != Expr.Call.Passing.BY_VALUE;
            params.add(byPointer ? "ptr" : llvmType(c.args().get(i).type()));
        }
        return (inPlace ? "void" : llvmType(c.type())) + " (" + params.stream().collect(Collectors.joining(", ")) + ")";
    }

    private static String llvmType(ScalarType t) {
        return switch (t) {
            case F32 -> "float";
            case F64 -> "double";
            case BOOL -> "i1";
            default -> "i" + MachineTypes.byteSize(t) * 8;
        };
    }
}
