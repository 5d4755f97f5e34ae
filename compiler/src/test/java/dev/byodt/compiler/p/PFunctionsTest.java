package dev.byodt.compiler.p;

import dev.byodt.compiler.Targets;
import dev.byodt.compiler.codegen.LibraryLinker;
import dev.byodt.compiler.lower.LibraryFunction;
import dev.byodt.compiler.target.Target;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.bytedeco.llvm.global.LLVM.*;
import static org.junit.jupiter.api.Assertions.*;

/** The typed references P's lowerings and passes call are fixed_p.c's functions, with fixed_p.c's types. */
class PFunctionsTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"riscv32p", "riscv64p", "host"})
    void everyDeclaredFunctionIsInTheLibraryWithItsType(String targetName) {
        Target target = targetName.equals("host") ? Target.host().with(new PExtension(PExtension.OPCODE)) : Targets.named(targetName);
        LLVMContextRef context = LLVMContextCreate();
        try {
            LLVMModuleRef library = LibraryLinker.load(target.extension().orElseThrow().library(target), target, context);
            Map<String, String> defined = LibraryLinker.definedFunctions(library);
            LLVMDisposeModule(library);
            for (LibraryFunction f : target.extension().orElseThrow().functions(target)) {
                assertEquals(f.llvmType(), defined.get(f.name()), f.name() + " on " + targetName);
            }
        } finally {
            LLVMContextDispose(context);
        }
    }
}
