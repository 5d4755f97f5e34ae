package dev.byodt.compiler.codegen;

import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.NativeLibrary;
import dev.byodt.compiler.target.Llvm;
import dev.byodt.compiler.target.Target;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.runtime.ByodtException;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * Loads a datatype's library as an LLVM module and links it into a model's module before optimization, so
 * that its functions inline into the kernels and vectorize with them. A C source is compiled by the clang
 * bundled with LLVM for the module's triple (cached by content hash, parameters included), see
 * {@link #C_FLAGS} and the target's ISA flags; .bc and .ll libraries are taken as they are. Linked functions become internal: the module exports only
 * its entry point, and the library's names cannot clash with anything else in a process or a link.
 */
public final class LibraryLinker {
    /**
     * No FMA contraction (results must not depend on the target having FMA), and no vectorizing inside the
     * library: clang would pair the two operands of a binary function into a 2-lane vector, and vector
     * instructions in a loop body stop LLVM's loop vectorizer once the function is inlined there. The model's
     * O3 vectorizes the loops, library code included, after inlining.
     */
    private static final List<String> C_FLAGS = List.of("-ffp-contract=off", "-fno-slp-vectorize", "-fno-vectorize");

    private LibraryLinker() {}

    /**
     * The library as a module of {@code context}, compiled for {@code triple} when it is C source.
     *
     * @throws ByodtException with clang's first diagnostic (file:line:column) when the source does not compile
     */
    public static LLVMModuleRef load(NativeLibrary library, Target target, LLVMContextRef context) {
        LibrarySource source = library.source();
        return switch (source.format()) {
            case C -> parseBitcode(compile(library, target), source.displayName(), context);
            case BITCODE -> parse(source.read(), source.displayName(), context, false);
            case IR_TEXT -> parse(source.read(), source.displayName(), context, true);
        };
    }

    private static byte[] compile(NativeLibrary library, Target target) {
        String triple = target.triple();
        List<String> flags = new ArrayList<>(C_FLAGS);
        // The ISA and float ABI of the model: bitcode of another ABI does not link, and functions compiled
        // for other features do not inline.
        flags.addAll(target.clangFlags());
        flags.addAll(library.compilerFlags());
        Path bitcode = switch (library.source()) {
            case LibrarySource.File file -> BundledTools.get().compileToBitcode(file.path(), triple, flags);
            case LibrarySource.Resource resource -> BundledTools.get().compileToBitcode(
                new String(resource.read(), StandardCharsets.UTF_8), resource.path(), triple, flags);
        };
        try {
            return Files.readAllBytes(bitcode);
        } catch (java.io.IOException e) {
            throw new ByodtException("cannot read the compiled library " + bitcode + ": " + e.getMessage(), e);
        }
    }

    private static LLVMModuleRef parseBitcode(byte[] bytes, String name, LLVMContextRef context) {
        return parse(bytes, name, context, false);
    }

    private static LLVMModuleRef parse(byte[] bytes, String name, LLVMContextRef context, boolean irText) {
        // The IR parser wants a terminating NUL inside the buffer it is given; bitcode does not mind one.
        byte[] terminated = java.util.Arrays.copyOf(bytes, bytes.length + 1);
        LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(new BytePointer(terminated), bytes.length, new BytePointer(name));
        LLVMModuleRef library = new LLVMModuleRef();
        if (irText) {
            BytePointer message = new BytePointer();
            // LLVMParseIRInContext takes ownership of the buffer.
            if (LLVMParseIRInContext(context, buffer, library, message) != 0) {
                throw new ByodtException("the datatype library " + name + " is not valid LLVM IR: " + firstLine(Llvm.take(message)));
            }
            return library;
        }
        try {
            if (LLVMParseBitcodeInContext2(context, buffer, library) != 0) {
                throw new ByodtException("the datatype library " + name + " is not valid LLVM bitcode");
            }
            return library;
        } finally {
            LLVMDisposeMemoryBuffer(buffer);
        }
    }

    /** The functions {@code library} defines, each with its LLVM type as text: "i16 (i16, i16)". */
    public static Map<String, String> definedFunctions(LLVMModuleRef library) {
        Map<String, String> functions = new LinkedHashMap<>();
        for (LLVMValueRef fn = LLVMGetFirstFunction(library); fn != null && !fn.isNull(); fn = LLVMGetNextFunction(fn)) {
            if (LLVMIsDeclaration(fn) == 0) {
                functions.put(LLVMGetValueName(fn).getString(), Llvm.take(LLVMPrintTypeToString(LLVMGlobalGetValueType(fn))));
            }
        }
        return functions;
    }

    /**
     * Links {@code library} into {@code module} (consuming it); its definitions become internal. Without
     * {@code inline} they are also kept out of line (noinline), so the optimized module still shows each call.
     */
    public static void link(LLVMModuleRef module, LLVMModuleRef library, boolean inline) {
        List<String> defined = new ArrayList<>(definedFunctions(library).keySet());
        // LLVMLinkModules2 destroys the library module, whether or not linking succeeds.
        if (LLVMLinkModules2(module, library) != 0) {
            throw new ByodtException("a datatype library does not link with the model (" + String.join(", ", defined) + ")");
        }
        LLVMContextRef context = LLVMGetModuleContext(module);
        int alwaysInline = LLVMGetEnumAttributeKindForName("alwaysinline", "alwaysinline".length());
        int noInline = LLVMGetEnumAttributeKindForName("noinline", "noinline".length());
        for (String name : defined) {
            LLVMValueRef fn = LLVMGetNamedFunction(module, name);
            if (fn == null || fn.isNull()) continue;
            LLVMSetLinkage(fn, LLVMInternalLinkage);
            if (!inline) {
                LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, alwaysInline);
                LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(context, noInline, 0));
            }
        }
    }

    private static String firstLine(String text) {
        int newline = text.indexOf('\n');
        return (newline < 0 ? text : text.substring(0, newline)).strip();
    }
}
