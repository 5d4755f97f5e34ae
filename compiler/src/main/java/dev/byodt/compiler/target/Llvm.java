package dev.byodt.compiler.target;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMErrorRef;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * Loading LLVM and the small pieces of its C API's protocol that every caller needs. The first use of the
 * LLVM class loads the native library (about 100 MB); targets are initialised once per process.
 */
public final class Llvm {
    private static boolean nativeReady;
    private static boolean allReady;

    private Llvm() {}

    /** Loads LLVM and initialises the host's code generator, the one the JIT uses. */
    public static synchronized void initializeNative() {
        if (nativeReady) return;
        LLVMInitializeNativeTarget();
        LLVMInitializeNativeAsmPrinter();
        LLVMInitializeNativeAsmParser();
        nativeReady = true;
    }

    /** Initialises every target LLVM was built with, for cross-compilation. */
    public static synchronized void initializeAll() {
        if (allReady) return;
        LLVMInitializeAllTargetInfos();
        LLVMInitializeAllTargets();
        LLVMInitializeAllTargetMCs();
        LLVMInitializeAllAsmPrinters();
        LLVMInitializeAllAsmParsers();
        allReady = true;
    }

    /** Throws with LLVM's message (which consumes the error) if {@code error} is an error. */
    public static void check(LLVMErrorRef error, String doing) {
        if (error == null || error.isNull()) return;
        BytePointer message = LLVMGetErrorMessage(error);
        String text = message.getString();
        LLVMDisposeErrorMessage(message);
        throw new IllegalStateException(doing + ": " + text);
    }

    /** The string of an LLVM-allocated message, which is then freed. */
    public static String take(BytePointer message) {
        if (message == null || message.isNull()) return "";
        String text = message.getString();
        LLVMDisposeMessage(message);
        return text;
    }
}
