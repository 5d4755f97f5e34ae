package dev.byodt.compiler.codegen;

import dev.byodt.compiler.target.BundledTools;
import dev.byodt.runtime.ByodtException;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * Links a datatype's C library into a model's module before optimization, so that its functions inline
 * into the kernels and vectorize with them. The C source is compiled by the clang bundled with LLVM
 * for the module's triple (cached by content hash). Linked functions become internal: the module exports
 * only its entry point, and the library's names cannot clash with anything else in a process or a link.
 */
public final class LibraryLinker {
    private LibraryLinker() {}

    /** Links the C source at classpath resource {@code resource} into {@code module}. */
    public static void link(LLVMModuleRef module, String resource, String triple) {
        String source = readResource(resource);
        String fileName = resource.substring(resource.lastIndexOf('/') + 1);
        Path bitcode = BundledTools.get().compileToBitcode(source, fileName, triple, List.of());
        linkBitcode(module, bitcode);
    }

    /** Links a bitcode file into {@code module}; the definitions it adds become internal. */
    public static void linkBitcode(LLVMModuleRef module, Path bitcode) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(bitcode);
        } catch (IOException e) {
            throw new ByodtException("cannot read the datatype library " + bitcode + ": " + e.getMessage(), e);
        }
        LLVMContextRef context = LLVMGetModuleContext(module);
        BytePointer data = new BytePointer(bytes);
        LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(data, bytes.length, new BytePointer(bitcode.toString()));
        LLVMModuleRef library = new LLVMModuleRef();
        if (LLVMParseBitcodeInContext2(context, buffer, library) != 0) {
            LLVMDisposeMemoryBuffer(buffer);
            throw new ByodtException("the datatype library " + bitcode + " is not valid LLVM bitcode");
        }
        LLVMDisposeMemoryBuffer(buffer);
        List<String> defined = definedFunctions(library);
        // LLVMLinkModules2 destroys the library module, whether or not linking succeeds.
        if (LLVMLinkModules2(module, library) != 0) {
            throw new ByodtException("the datatype library " + bitcode + " does not link with the model");
        }
        for (String name : defined) {
            LLVMValueRef fn = LLVMGetNamedFunction(module, name);
            if (fn != null && !fn.isNull()) LLVMSetLinkage(fn, LLVMInternalLinkage);
        }
    }

    private static List<String> definedFunctions(LLVMModuleRef library) {
        List<String> names = new ArrayList<>();
        for (LLVMValueRef fn = LLVMGetFirstFunction(library); fn != null && !fn.isNull(); fn = LLVMGetNextFunction(fn)) {
            if (LLVMIsDeclaration(fn) == 0) names.add(LLVMGetValueName(fn).getString());
        }
        return names;
    }

    private static String readResource(String resource) {
        try (InputStream in = LibraryLinker.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("datatype library " + resource + " is missing from the classpath");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
    }
}
