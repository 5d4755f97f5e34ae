package dev.byodt.compiler.codegen;

import dev.byodt.compiler.dtype.CompileTimeConversion;
import dev.byodt.compiler.dtype.NativeLibrary;
import dev.byodt.compiler.dtype.StochasticRounding;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.MachineTypes;
import dev.byodt.compiler.target.Llvm;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.Activity;
import dev.byodt.runtime.ByodtException;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMOrcDefinitionGeneratorRef;
import org.bytedeco.llvm.LLVM.LLVMOrcJITDylibRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeContextRef;
import org.bytedeco.llvm.LLVM.LLVMTargetDataRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * A datatype library's {@code T f(double)} conversion, compiled for this machine and called at compile time,
 * so constants and weights get exactly the library's rounding, once, whatever the target (a stochastically
 * rounding library's {@code T f(double, uint64_t counter)}, each weight with the counter of its tensor and
 * index, each constant with one of its value: {@link StochasticRounding}); and its
 * {@code float f(T)}, when it has one, to read a constant's value back. The library is JIT-compiled together
 * with a small loop that converts a whole float32 array per call. A {@code T f(void)} (the library's lowest
 * value) is run the same way, for the value it returns. Conversions are kept for the life of the process (one
 * per library build and pair of functions).
 */
public final class HostConversion implements CompileTimeConversion {
    private static final Map<String, Compiled> CACHE = new ConcurrentHashMap<>();

    /** The JIT-compiled drivers of one library's functions, shared by every seed. */
    private record Compiled(String function, ScalarType storage, boolean constant, MethodHandle convertArray,
                            MethodHandle convertOne, Optional<MethodHandle> valueOf) {}

    private final Compiled compiled;
    private final long seed;

    private HostConversion(Compiled compiled, long seed) {
        this.compiled = compiled;
        this.seed = seed;
    }

    /**
     * The conversion {@code function} of {@code library}, whose values are stored as {@code storage}, and its
     * conversion back {@code toF32} when there is one; {@code seed} is --seed, which a stochastically rounding
     * conversion's counters hash.
     */
    public static HostConversion of(NativeLibrary library, String function, Optional<String> toF32, ScalarType storage, long seed) {
        return new HostConversion(CACHE.computeIfAbsent(library + "\0" + function + "\0" + toF32.orElse("") + "\0" + storage,
            key -> compile(library, function, toF32, storage)), seed);
    }

    @Override
    public boolean isConstant() { return compiled.constant(); }

    @Override
    public long convert(double value) {
        long counter = StochasticRounding.key(seed, "constant") + Double.doubleToRawLongBits(value);
        try (Activity.Step step = Activity.userCode("converting a constant with " + compiled.function())) {
            return (long) compiled.convertOne().invokeExact(value, counter);
        } catch (Throwable e) {
            throw new IllegalStateException("calling the compile-time conversion failed", e);
        }
    }

    @Override
    public Optional<Double> valueOf(long bits) {
        if (compiled.valueOf().isEmpty()) return Optional.empty();
        try (Activity.Step step = Activity.userCode("reading a constant back")) {
            return Optional.of((double) compiled.valueOf().get().invokeExact(bits));
        } catch (Throwable e) {
            throw new IllegalStateException("calling the compile-time conversion failed", e);
        }
    }

    @Override
    public MemorySegment convertAll(MemorySegment float32Values, String tensor) {
        long count = float32Values.byteSize() / Float.BYTES;
        Arena arena = Arena.ofAuto();
        MemorySegment in = arena.allocate(Math.max(1, float32Values.byteSize()), 64).asSlice(0, float32Values.byteSize());
        in.copyFrom(float32Values);
        long bytes = count * MachineTypes.byteSize(compiled.storage());
        MemorySegment out = arena.allocate(Math.max(1, bytes), 64).asSlice(0, bytes);
        long firstCounter = StochasticRounding.key(seed, "weights " + tensor);
        try (Activity.Step step = Activity.userCode("converting " + count + " weights with " + compiled.function())) {
            compiled.convertArray().invokeExact(in, out, count, firstCounter);
        } catch (Throwable e) {
            throw new IllegalStateException("calling the compile-time conversion failed", e);
        }
        return out;
    }

    private static Compiled compile(NativeLibrary library, String function, Optional<String> toF32, ScalarType storage) {
        Llvm.initializeNative();
        Target host = Target.host();
        LLVMOrcThreadSafeContextRef threadSafeContext = LLVMOrcCreateNewThreadSafeContext();
        LLVMContextRef context = LLVMOrcThreadSafeContextGetContext(threadSafeContext);
        LLVMModuleRef libraryModule = LibraryLinker.load(library, host, context);
        Map<String, String> defined = LibraryLinker.definedFunctions(libraryModule);
        boolean constant = (llvmType(storage) + " ()").equals(defined.get(function));
        boolean stochastic = (llvmType(storage) + " (double, i64)").equals(defined.get(function));
        try {
            if (constant) requireFunction(library, defined, function, llvmType(storage) + " ()", "lowest", "constants and weights");
            else if (!stochastic) requireFunction(library, defined, function, llvmType(storage) + " (double)", "from_f64", "constants and weights");
            toF32.ifPresent(f -> requireFunction(library, defined, f, "float (" + llvmType(storage) + ")", "to_f32", "reading constants back"));
        } catch (ByodtException e) {
            LLVMDisposeModule(libraryModule);
            throw e;
        }
        LLVMOrcLLJITRef jit = jit(libraryModule, driverIr(function, storage, constant, stochastic) + toF32.map(f -> readBackIr(f, storage)).orElse(""),
            threadSafeContext);
        Linker linker = Linker.nativeLinker();
        MethodHandle array = linker.downcallHandle(lookup(jit, "byodt_convert_array"),
            FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        MethodHandle one = linker.downcallHandle(lookup(jit, "byodt_convert_one"),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_DOUBLE, ValueLayout.JAVA_LONG));
        Optional<MethodHandle> back = toF32.map(f -> linker.downcallHandle(lookup(jit, "byodt_value_of"),
            FunctionDescriptor.of(ValueLayout.JAVA_DOUBLE, ValueLayout.JAVA_LONG)));
        return new Compiled(function, storage, constant, array, one, back);
    }

    /**
     * {@code libraryModule} linked into the module of {@code driverIr} (LLVM IR text calling it), verified and
     * JIT-compiled for this machine; the context's modules belong to the JIT from then on.
     */
    static LLVMOrcLLJITRef jit(LLVMModuleRef libraryModule, String driverIr, LLVMOrcThreadSafeContextRef threadSafeContext) {
        Target host = Target.host();
        LLVMModuleRef driver = parse(driverIr, LLVMOrcThreadSafeContextGetContext(threadSafeContext));
        LLVMSetTarget(driver, host.triple());
        LLVMTargetMachineRef machine = host.createTargetMachine();
        LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(machine);
        LLVMSetModuleDataLayout(driver, layout);
        LLVMDisposeTargetData(layout);
        LLVMDisposeTargetMachine(machine);
        LibraryLinker.link(driver, libraryModule, true);
        Optimizer.verify(driver);

        LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
        LLVMOrcLLJITRef jit = new LLVMOrcLLJITRef();
        Llvm.check(LLVMOrcCreateLLJIT(jit, builder), "starting the JIT");
        LLVMOrcJITDylibRef main = LLVMOrcLLJITGetMainJITDylib(jit);
        LLVMOrcDefinitionGeneratorRef processSymbols = new LLVMOrcDefinitionGeneratorRef();
        Llvm.check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(processSymbols,
            LLVMOrcLLJITGetGlobalPrefix(jit), null, null), "looking up this process's symbols");
        LLVMOrcJITDylibAddGenerator(main, processSymbols);
        Llvm.check(LLVMOrcLLJITAddLLVMIRModule(jit, main, LLVMOrcCreateNewThreadSafeModule(driver, threadSafeContext)),
            "adding the compile-time driver to the JIT");
        LLVMOrcDisposeThreadSafeContext(threadSafeContext);
        return jit;
    }

    /** Fails with one line unless the library defines {@code function}, datatype operation {@code op}, of {@code type}. */
    private static void requireFunction(NativeLibrary library, Map<String, String> defined, String function, String type,
                                        String op, String purpose) {
        String actual = defined.get(function);
        if (actual == null) {
            throw new ByodtException("the datatype library " + library + " defines no function " + function + " (" + op + ": " + purpose + ")");
        }
        if (!actual.equals(type)) throw new ByodtException(function + " in " + library + " has type " + actual + ", but " + op + " needs " + type);
    }

    static MemorySegment lookup(LLVMOrcLLJITRef jit, String symbol) {
        long[] address = new long[1];
        Llvm.check(LLVMOrcLLJITLookup(jit, address, symbol), "compiling " + symbol);
        return MemorySegment.ofAddress(address[0]);
    }

    /**
     * for (i < n) out[i] = f((double) in[i]); and the zero-extended bits of f(x) for one x. A function of no
     * argument ({@code constant}: a value the library defines, such as its lowest) gives that value for every x;
     * a {@code stochastic} one takes the counter too, first + i for element i.
     */
    private static String driverIr(String function, ScalarType storage, boolean constant, boolean stochastic) {
        String t = llvmType(storage);
        String f = "@\"" + function + "\"";
        String counted = stochastic ? ", i64 %counter" : "";
        return """
            declare %1$s %2$s(%3$s)

            define void @byodt_convert_array(ptr noalias %%in, ptr noalias %%out, i64 %%n, i64 %%first) {
            entry:
              %%empty = icmp sle i64 %%n, 0
              br i1 %%empty, label %%done, label %%loop
            loop:
              %%i = phi i64 [ 0, %%entry ], [ %%next, %%loop ]
              %%src = getelementptr inbounds float, ptr %%in, i64 %%i
              %%x = load float, ptr %%src
              %%wide = fpext float %%x to double
              %%counter = add i64 %%first, %%i
              %%v = call %1$s %2$s(%4$s)
              %%dst = getelementptr inbounds %1$s, ptr %%out, i64 %%i
              store %1$s %%v, ptr %%dst
              %%next = add nsw i64 %%i, 1
              %%more = icmp slt i64 %%next, %%n
              br i1 %%more, label %%loop, label %%done
            done:
              ret void
            }

            define i64 @byodt_convert_one(double %%x, i64 %%counter) {
              %%v = call %1$s %2$s(%5$s)
              %%bits = zext %1$s %%v to i64
              ret i64 %%bits
            }
            """.formatted(t, f, constant ? "" : stochastic ? "double, i64" : "double", constant ? "" : "double %wide" + counted,
                constant ? "" : "double %x" + counted);
    }

    /** The value of storage bits (the low bits of an i64) by {@code toF32}, widened to double. */
    private static String readBackIr(String toF32, ScalarType storage) {
        return """

            declare float @"%2$s"(%1$s)

            define double @byodt_value_of(i64 %%bits) {
              %%v = trunc i64 %%bits to %1$s
              %%f = call float @"%2$s"(%1$s %%v)
              %%d = fpext float %%f to double
              ret double %%d
            }
            """.formatted(llvmType(storage), toF32);
    }

    private static LLVMModuleRef parse(String ir, LLVMContextRef context) {
        byte[] bytes = (ir + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(new BytePointer(bytes), bytes.length - 1,
            new BytePointer("conversion"));
        LLVMModuleRef module = new LLVMModuleRef();
        BytePointer message = new BytePointer();
        if (LLVMParseIRInContext(context, buffer, module, message) != 0) {
            throw new IllegalStateException("byodt's conversion driver does not parse: " + Llvm.take(message));
        }
        return module;
    }

    static String llvmType(ScalarType t) {
        return switch (t) {
            case F32 -> "float";
            case F64 -> "double";
            case BOOL -> "i1";
            default -> "i" + MachineTypes.byteSize(t) * 8;
        };
    }
}
