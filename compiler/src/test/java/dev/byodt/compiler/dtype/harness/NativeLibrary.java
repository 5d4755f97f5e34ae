package dev.byodt.compiler.dtype.harness;

import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.target.Target;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.compiler.toolchain.ProcessResult;
import dev.byodt.runtime.AtomicFiles;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A datatype's C library compiled for the host and loaded into this JVM, for tests: the library source (a
 * classpath resource) plus generated loop drivers ({@link LoopDrivers}) is compiled by the bundled clang with
 * {@link BundledTools#compileToBitcode} (so with the same freestanding flags as a model's libraries, plus the
 * caller's -D parameters), in one translation unit with the drivers (so the library inlines into them), linked by
 * the bundled ld.lld into a shared object (both cached by content under byodt's cache), and called through
 * java.lang.foreign. Each call converts whole arrays, so millions of elements take milliseconds.
 *
 * <p>Storage values travel as {@code int}s holding the storage pattern: 0..255 for uint8_t, 0..65535 for
 * uint16_t (results come back zero-extended like that), the raw 32 bits for uint32_t. Functions are named
 * by operation ("add") or in full ("fxp16_13_add").
 *
 * <pre>{@code
 * try (NativeLibrary lib = NativeLibrary.builder("dev/byodt/datatypes/fixed/fixed.c", "fxp16_13", 16)
 *         .define("FXP_N", "16").define("FXP_P", "13").accumulatorBits(64).build()) {
 *     int[] sums = lib.binary("add", a, b);
 * }
 * }</pre>
 * Thread-safe; close it to unload the library.
 */
public final class NativeLibrary implements AutoCloseable {
    private final String prefix;
    private final int storageBits;
    private final int accumulatorWords;
    private final Map<String, FunctionShape> functions;
    private final Arena arena;
    private final SymbolLookup symbols;
    private final Map<String, MethodHandle> drivers = new ConcurrentHashMap<>();

    private NativeLibrary(String prefix, int storageBits, int accumulatorWords, Map<String, FunctionShape> functions,
                          Arena arena, SymbolLookup symbols) {
        this.prefix = prefix;
        this.storageBits = storageBits;
        this.accumulatorWords = accumulatorWords;
        this.functions = functions;
        this.arena = arena;
        this.symbols = symbols;
    }

    /**
     * A library to compile: {@code resource} is the C file's classpath path, {@code prefix} its function-name
     * prefix (passed as -DBYODT_PREFIX too), {@code storageBits} 8, 16 or 32.
     */
    public static Builder builder(String resource, String prefix, int storageBits) {
        return builder(LibrarySource.resource(resource), prefix, storageBits);
    }

    /** A library of several C resources compiled as one translation unit, as a built-in datatype's is. */
    public static Builder builder(LibrarySource source, String prefix, int storageBits) {
        return new Builder(source, prefix, storageBits);
    }

    /** The accumulation results of {@link #dot} and {@link #sum}: per group, the final accumulator and its rounding. */
    public record Accumulated(int[] rounded, long[][] accumulators) {}

    public static final class Builder {
        private final LibrarySource source;
        private final String prefix;
        private final int storageBits;
        private final Map<String, String> defines = new LinkedHashMap<>();
        private final List<String> flags = new ArrayList<>();
        private Map<String, FunctionShape> operations = StandardFunctions.all();
        private int accumulatorBits;

        private Builder(LibrarySource source, String prefix, int storageBits) {
            if (storageBits != 8 && storageBits != 16 && storageBits != 32) {
                throw new IllegalArgumentException("storage must be 8, 16 or 32 bits, not " + storageBits);
            }
            this.source = source;
            this.prefix = prefix;
            this.storageBits = storageBits;
        }

        public Builder define(String name, String value) {
            defines.put(name, value);
            return this;
        }

        public Builder defines(Map<String, String> more) {
            defines.putAll(more);
            return this;
        }

        /** Extra clang flags, after the harness's own. */
        public Builder flag(String flag) {
            flags.add(flag);
            return this;
        }

        /** Drivers only for these operations (default: every operation of {@link StandardFunctions#all()}). */
        public Builder operations(Map<String, FunctionShape> ops) {
            operations = new LinkedHashMap<>(ops);
            return this;
        }

        /** The library's exact accumulator width (64..512, a multiple of 64): adds the acc_mac/acc_add/acc_round drivers. */
        public Builder accumulatorBits(int bits) {
            if (bits % 64 != 0 || bits < 0) throw new IllegalArgumentException("accumulator bits must be a multiple of 64: " + bits);
            accumulatorBits = bits;
            return this;
        }

        /** The functions that take a counter: those of {@link DatatypeOp#takesRandomCounter} in a stochastically rounding build. */
        private Set<String> countedFunctions() {
            if (!"BYODT_ROUNDING_STOCHASTIC".equals(defines.get("BYODT_ROUNDING"))) return Set.of();
            return DatatypeOp.values().stream().filter(DatatypeOp::takesRandomCounter).map(op -> prefix + "_" + op.functionSuffix())
                .collect(Collectors.toSet());
        }

        public NativeLibrary build() {
            Map<String, FunctionShape> functions = new LinkedHashMap<>();
            operations.forEach((op, shape) -> functions.put(prefix + "_" + op, shape));
            String storage = "uint" + storageBits + "_t";
            String unit = new String(source.read(), StandardCharsets.UTF_8)
                + LoopDrivers.source(storage, functions, countedFunctions(), prefix, accumulatorBits / 64);
            List<String> clangFlags = new ArrayList<>(List.of("-fPIC", "-ffp-contract=off", "-DBYODT_PREFIX=" + prefix));
            defines.forEach((name, value) -> clangFlags.add("-D" + name + "=" + value));
            clangFlags.addAll(flags);
            BundledTools tools = BundledTools.get();
            String name = source.displayName();
            Path bitcode = tools.compileToBitcode(unit, name.substring(name.lastIndexOf('/') + 1), hostTriple(), clangFlags);
            Path sharedObject = LINKED.computeIfAbsent(bitcode, b -> link(tools, b, prefix, name));
            Arena arena = Arena.ofShared();
            SymbolLookup symbols = SymbolLookup.libraryLookup(sharedObject, arena);
            return new NativeLibrary(prefix, storageBits, accumulatorBits / 64, functions, arena, symbols);
        }
    }

    /**
     * lld's flags: a shared object, its machine code generated at -O2 from the bitcode as clang optimized it at -O2.
     * The drivers are in the library's translation unit, so clang has already inlined the functions into them and
     * vectorized their loops; optimizing the whole module again at link time (--lto-O2) took a third of the link.
     */
    private static final List<String> LINK_FLAGS = List.of("-shared", "--lto-O0", "--lto-CGO2");

    /**
     * Shared objects loaded in this JVM, by their bitcode: test classes load the same library in several test
     * methods. The libraries hold no mutable state, so the copies loaded at once may share one file.
     */
    private static final Map<Path, Path> LINKED = new ConcurrentHashMap<>();

    /**
     * The shared object of a library's bitcode, cached beside the bitcode under a name made of the bitcode's
     * (a hash of the source, the flags and the bundled clang's version, which is its lld's too) and a folder
     * named by the link flags: the shared object is fixed by those as the bitcode is by its source, and linking
     * (code generation) is about half a library's build time, so an unchanged library links once per machine, not once
     * per test run. Written atomically: runs linking the same library at once each see a whole file.
     */
    private static Path link(BundledTools tools, Path bitcode, String prefix, String sourceName) {
        String bitcodeName = bitcode.getFileName().toString();
        Path sharedObject = tools.cacheDirectory().resolve("linked" + String.join("", LINK_FLAGS).replaceAll("[^A-Za-z0-9]+", "-"))
            .resolve(bitcodeName.substring(0, bitcodeName.lastIndexOf('.')) + ".so");
        if (Files.exists(sharedObject)) return sharedObject;
        AtomicFiles.write(sharedObject, temporary -> {
            List<String> command = new ArrayList<>(List.of(tools.lld().toString()));
            command.addAll(LINK_FLAGS);
            command.addAll(List.of(bitcode.toString(), "-o", temporary.toString()));
            ProcessResult linked = tools.run(command);
            if (!linked.succeeded()) {
                throw new IllegalStateException("cannot link " + sourceName + " for " + prefix + ": " + linked.firstErrorLine());
            }
        });
        return sharedObject;
    }

    /** The triple of the machine running the tests (LLVM's default triple, as the JIT uses). */
    static String hostTriple() {
        return Target.host().triple();
    }

    public String prefix() { return prefix; }

    public int storageBits() { return storageBits; }

    /** A binary function's results, or those of a vector variant (VECTOR_BINARY) of one. */
    public int[] binary(String function, int[] a, int[] b) {
        boolean variant = functions.get(fullName(function)) == FunctionShape.VECTOR_BINARY;
        return callPairs(function, variant ? FunctionShape.VECTOR_BINARY : FunctionShape.BINARY, a, b, storage());
    }

    /** The results of a function of a value and an int32_t (div_i32). */
    public int[] withInt32(String function, int[] a, int[] b) {
        return callPairs(function, FunctionShape.VALUE_AND_INT32, a, b, storage());
    }

    /** A comparison's results, 0 or 1. */
    public int[] compare(String function, int[] a, int[] b) {
        return callPairs(function, FunctionShape.COMPARE, a, b, ValueLayout.JAVA_INT);
    }

    public int[] unary(String function, int[] a) {
        return toInts(callUnary(function, FunctionShape.UNARY, storageSegmentOf(a), a.length, storage()), storage());
    }

    public int[] fromF32(String function, float[] x) {
        try (Arena call = Arena.ofConfined()) {
            return toInts(callUnary(function, FunctionShape.FROM_F32, call.allocateFrom(ValueLayout.JAVA_FLOAT, x), x.length, storage()), storage());
        }
    }

    public float[] toF32(String function, int[] a) {
        return callUnary(function, FunctionShape.TO_F32, storageSegmentOf(a), a.length, ValueLayout.JAVA_FLOAT)
            .toArray(ValueLayout.JAVA_FLOAT);
    }

    /** The results of a function from float to float (rounded_f32), or of a vector variant (VECTOR_FLOAT_TO_FLOAT) of one. */
    public float[] floatToFloat(String function, float[] x) {
        FunctionShape shape = functions.get(fullName(function)) == FunctionShape.VECTOR_FLOAT_TO_FLOAT
            ? FunctionShape.VECTOR_FLOAT_TO_FLOAT : FunctionShape.FLOAT_TO_FLOAT;
        try (Arena call = Arena.ofConfined()) {
            return callUnary(function, shape, call.allocateFrom(ValueLayout.JAVA_FLOAT, x), x.length, ValueLayout.JAVA_FLOAT)
                .toArray(ValueLayout.JAVA_FLOAT);
        }
    }

    public int[] fromF64(String function, double[] x) {
        try (Arena call = Arena.ofConfined()) {
            return toInts(callUnary(function, FunctionShape.FROM_F64, call.allocateFrom(ValueLayout.JAVA_DOUBLE, x), x.length, storage()), storage());
        }
    }

    public int[] fromI32(String function, int[] x) {
        try (Arena call = Arena.ofConfined()) {
            return toInts(callUnary(function, FunctionShape.FROM_I32, call.allocateFrom(ValueLayout.JAVA_INT, x), x.length, storage()), storage());
        }
    }

    public int[] toI32(String function, int[] a) {
        return callUnary(function, FunctionShape.TO_I32, storageSegmentOf(a), a.length, ValueLayout.JAVA_INT)
            .toArray(ValueLayout.JAVA_INT);
    }

    /** A constant function's value, e.g. {@code constant("lowest")}. */
    public int constant(String function) {
        String name = fullName(function);
        expectShape(name, FunctionShape.CONSTANT);
        MethodHandle driver = driver(name, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(storage());
            invoke(driver, out);
            return toInts(out, storage())[0];
        }
    }

    /**
     * Exact dot products: {@code a} and {@code b} split into groups of {@code length} consecutive elements,
     * each group's products accumulated with acc_mac from the zero accumulator, then rounded with acc_round.
     */
    public Accumulated dot(int[] a, int[] b, int length) {
        if (a.length != b.length) throw new IllegalArgumentException("arrays of different lengths");
        try (Arena call = Arena.ofConfined()) {
            return accumulate(call, prefix + "_acc_dot", length, a.length, storageSegment(call, a), storageSegment(call, b));
        }
    }

    /** Exact sums of groups of {@code length} consecutive elements with acc_add, each rounded with acc_round. */
    public Accumulated sum(int[] a, int length) {
        try (Arena call = Arena.ofConfined()) {
            return accumulate(call, prefix + "_acc_sum", length, a.length, storageSegment(call, a));
        }
    }

    private Accumulated accumulate(Arena call, String name, int length, int count, MemorySegment... inputs) {
        if (accumulatorWords == 0) throw new IllegalStateException(prefix + " was built without an accumulator");
        if (length <= 0 || count % length != 0) throw new IllegalArgumentException("group length " + length + " does not divide " + count);
        long groups = count / length;
        MemorySegment accumulators = call.allocate(ValueLayout.JAVA_LONG, groups * accumulatorWords);
        MemorySegment out = call.allocate(storage(), groups);
        List<Object> args = new ArrayList<>(List.of(inputs));
        args.add(groups);
        args.add((long) length);
        args.add(accumulators);
        args.add(out);
        FunctionDescriptor descriptor = inputs.length == 2
            ? FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.ADDRESS)
            : FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.ADDRESS);
        invoke(driver(name, descriptor), args.toArray());
        long[] words = accumulators.toArray(ValueLayout.JAVA_LONG);
        long[][] perGroup = new long[(int) groups][];
        for (int g = 0; g < groups; g++) {
            perGroup[g] = Arrays.copyOfRange(words, g * accumulatorWords, (g + 1) * accumulatorWords);
        }
        return new Accumulated(toInts(out, storage()), perGroup);
    }

    private int[] callPairs(String function, FunctionShape shape, int[] a, int[] b, ValueLayout outLayout) {
        if (a.length != b.length) throw new IllegalArgumentException("arrays of different lengths");
        String name = fullName(function);
        expectShape(name, shape);
        MethodHandle driver = driver(name,
            FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(outLayout, Math.max(1, a.length));
            MemorySegment second = shape == FunctionShape.VALUE_AND_INT32 ? call.allocateFrom(ValueLayout.JAVA_INT, b) : storageSegment(call, b);
            invoke(driver, storageSegment(call, a), second, out, (long) a.length);
            return toInts(out.asSlice(0, outLayout.byteSize() * a.length), outLayout);
        }
    }

    /** Calls a one-input driver on {@code n} elements of {@code in}; the result lives in the automatic arena. */
    private MemorySegment callUnary(String function, FunctionShape shape, MemorySegment in, int n, ValueLayout outLayout) {
        String name = fullName(function);
        expectShape(name, shape);
        MethodHandle driver = driver(name,
            FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        MemorySegment out = Arena.ofAuto().allocate(outLayout, Math.max(1, n));
        invoke(driver, in, out, (long) n);
        return out.asSlice(0, outLayout.byteSize() * n);
    }

    private String fullName(String function) {
        return function.startsWith(prefix + "_") ? function : prefix + "_" + function;
    }

    private void expectShape(String name, FunctionShape shape) {
        FunctionShape declared = functions.get(name);
        if (declared == null) throw new IllegalArgumentException(name + " has no driver in this library");
        if (declared != shape) throw new IllegalArgumentException(name + " is " + declared + ", not " + shape);
    }

    private MethodHandle driver(String name, FunctionDescriptor descriptor) {
        return drivers.computeIfAbsent(name, n -> {
            MemorySegment address = symbols.find("drive_" + n)
                .orElseThrow(() -> new IllegalArgumentException("drive_" + n + " is not in the compiled library"));
            return Linker.nativeLinker().downcallHandle(address, descriptor);
        });
    }

    private static void invoke(MethodHandle driver, Object... args) {
        try {
            driver.invokeWithArguments(args);
        } catch (Throwable e) {
            throw new IllegalStateException("calling a loop driver failed", e);
        }
    }

    private ValueLayout storage() {
        return switch (storageBits) {
            case 8 -> ValueLayout.JAVA_BYTE;
            case 16 -> ValueLayout.JAVA_SHORT;
            default -> ValueLayout.JAVA_INT;
        };
    }

    private MemorySegment storageSegmentOf(int[] values) {
        return storageSegment(Arena.ofAuto(), values);
    }

    private MemorySegment storageSegment(Arena arena, int[] values) {
        ValueLayout layout = storage();
        MemorySegment segment = arena.allocate(layout, Math.max(1, values.length));
        switch (storageBits) {
            case 8 -> { for (int i = 0; i < values.length; i++) segment.set(ValueLayout.JAVA_BYTE, i, (byte) values[i]); }
            case 16 -> { for (int i = 0; i < values.length; i++) segment.setAtIndex(ValueLayout.JAVA_SHORT, i, (short) values[i]); }
            default -> MemorySegment.copy(values, 0, segment, ValueLayout.JAVA_INT, 0, values.length);
        }
        return segment;
    }

    private static int[] toInts(MemorySegment segment, ValueLayout layout) {
        if (layout == ValueLayout.JAVA_BYTE) {
            byte[] bytes = segment.toArray(ValueLayout.JAVA_BYTE);
            int[] values = new int[bytes.length];
            for (int i = 0; i < bytes.length; i++) values[i] = bytes[i] & 0xFF;
            return values;
        }
        if (layout == ValueLayout.JAVA_SHORT) {
            short[] shorts = segment.toArray(ValueLayout.JAVA_SHORT);
            int[] values = new int[shorts.length];
            for (int i = 0; i < shorts.length; i++) values[i] = shorts[i] & 0xFFFF;
            return values;
        }
        return segment.toArray(ValueLayout.JAVA_INT);
    }

    @Override
    public void close() {
        arena.close();
    }
}
