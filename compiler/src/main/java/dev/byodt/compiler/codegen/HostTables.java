package dev.byodt.compiler.codegen;

import dev.byodt.compiler.dtype.NativeLibrary;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.MachineTypes;
import dev.byodt.compiler.target.Llvm;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.Activity;
import dev.byodt.runtime.ByodtException;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeContextRef;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * A datatype library's function of one value {@code T f(T)}, compiled for this machine and called at compile
 * time on every value of an 8- or 16-bit storage type: the table that {@code FunctionTables} makes the model
 * load from instead of calling f. The library's code is the same on every target (integers, and doubles
 * without FMA contraction), so the table holds what the call would have returned there. Tables are kept for
 * the life of the process (one per library build and function).
 */
public final class HostTables {
    private static final Map<String, byte[]> CACHE = new ConcurrentHashMap<>();

    private HostTables() {}

    /**
     * f of every value of {@code storage} (I8 or I16), from the lowest (-2^(N-1) as two's complement) to the
     * highest, as storage integers in native byte order.
     */
    public static MemorySegment of(NativeLibrary library, String function, ScalarType storage) {
        byte[] table = CACHE.computeIfAbsent(library + "\0" + function + "\0" + storage, key -> tabulate(library, function, storage));
        // A heap segment over bytes: the code generator bakes constants from byte arrays.
        return MemorySegment.ofArray(table.clone());
    }

    private static byte[] tabulate(NativeLibrary library, String function, ScalarType storage) {
        int bits = MachineTypes.byteSize(storage) * Byte.SIZE;
        if (bits > 16) throw new IllegalArgumentException("tables are for 8- and 16-bit values, not " + storage);
        Llvm.initializeNative();
        LLVMOrcThreadSafeContextRef context = LLVMOrcCreateNewThreadSafeContext();
        LLVMModuleRef libraryModule = LibraryLinker.load(library, Target.host(), LLVMOrcThreadSafeContextGetContext(context));
        String type = HostConversion.llvmType(storage);
        String defined = LibraryLinker.definedFunctions(libraryModule).get(function);
        if (!(type + " (" + type + ")").equals(defined)) {
            LLVMDisposeModule(libraryModule);
            LLVMOrcDisposeThreadSafeContext(context);
            throw new ByodtException("the datatype library " + library + " defines no function " + function + " of type "
                + type + " (" + type + ") to tabulate" + (defined == null ? "" : ", but one of type " + defined));
        }
        LLVMOrcLLJITRef jit = HostConversion.jit(libraryModule, driverIr(function, type, bits), context);
        try (Arena arena = Arena.ofConfined(); Activity.Step step = Activity.userCode("tabulating " + function)) {
            long bytes = (1L << bits) * (bits / Byte.SIZE);
            MemorySegment out = arena.allocate(bytes, 64);
            MethodHandle tabulate = Linker.nativeLinker().downcallHandle(HostConversion.lookup(jit, "byodt_tabulate"),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
            tabulate.invokeExact(out);
            return out.toArray(ValueLayout.JAVA_BYTE);
        } catch (Throwable e) {
            throw new IllegalStateException("calling the compile-time tabulation failed", e);
        } finally {
            LLVMOrcDisposeLLJIT(jit);
        }
    }

    /** for (i < 2^bits) out[i] = f(i - 2^(bits-1)), the value's bits being i + 2^(bits-1) modulo 2^bits. */
    private static String driverIr(String function, String type, int bits) {
        return """
            declare %1$s @"%2$s"(%1$s)

            define void @byodt_tabulate(ptr noalias %%out) {
            entry:
              br label %%loop
            loop:
              %%i = phi i64 [ 0, %%entry ], [ %%next, %%loop ]
              %%offset = add i64 %%i, %3$d
              %%x = trunc i64 %%offset to %1$s
              %%v = call %1$s @"%2$s"(%1$s %%x)
              %%dst = getelementptr inbounds %1$s, ptr %%out, i64 %%i
              store %1$s %%v, ptr %%dst
              %%next = add nuw nsw i64 %%i, 1
              %%more = icmp ult i64 %%next, %4$d
              br i1 %%more, label %%loop, label %%done
            done:
              ret void
            }
            """.formatted(type, function, 1L << (bits - 1), 1L << bits);
    }
}
