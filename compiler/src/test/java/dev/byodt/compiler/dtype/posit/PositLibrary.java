package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.builtin.PositDatatypes;
import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.harness.StandardFunctions;
import dev.byodt.compiler.target.Target;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The posit library compiled for one instance as a model on this host gets it (with the host's clang flags), with
 * pattern conversions between the reference's N-bit patterns and storage.
 */
final class PositLibrary implements AutoCloseable {
    /** The vector variants of posit_x64.c, for N <= 8 where the host has its AVX-512 features. */
    static final List<String> VECTOR_VARIANTS = List.of("add_x64", "sub_x64", "mul_x64", "add_x32", "sub_x32", "mul_x32",
        "add_x16", "sub_x16", "mul_x16");
    /** The float-to-float functions posit.c defines where it converts through float32 (N <= 16). */
    static final List<String> ROUNDED_F32 = List.of("rounded_f32", "rounded_f32_with_fraction");

    final int n;
    final int es;
    final int storageBits;
    final NativeLibrary lib;

    private PositLibrary(int n, int es, NativeLibrary lib) {
        this.n = n;
        this.es = es;
        this.storageBits = storageBits(n);
        this.lib = lib;
    }

    static int storageBits(int n) { return n <= 8 ? 8 : n <= 16 ? 16 : 32; }

    /**
     * The quire width: the standard's 16N rounded up to 128/256/512, or wider when the range minPos^2..maxPos^2
     * with a sign and 30 carry bits needs it (es = 3).
     */
    static int accumulatorBits(int n, int es) {
        int maxScale = (n - 2) << es;
        int need = Math.max(16 * n, 4 * maxScale + 32);
        int bits = 128;
        while (bits < need) bits *= 2;
        return bits;
    }

    /**
     * The library as a model gets it (float32 and double arithmetic for N <= 16 on this host, vector variants,
     * rounded_f32 and rounded_f32_with_fraction for N <= 16): one library per instance, whichever test checks
     * which of its functions, so that on a cold cache each instance is built once.
     */
    static PositLibrary compile(int n, int es) {
        Map<String, FunctionShape> ops = new LinkedHashMap<>(StandardFunctions.all());
        if (hasVectorVariants(n)) VECTOR_VARIANTS.forEach(op -> ops.put(op, FunctionShape.VECTOR_BINARY));
        if (n <= 16) ROUNDED_F32.forEach(op -> ops.put(op, FunctionShape.FLOAT_TO_FLOAT));
        return new PositLibrary(n, es, builder(n, es).operations(ops).build());
    }

    /** Whether posit_x64.c compiles for N bits on this host: N <= 8 and AVX-512 BW, VBMI and VBMI2. */
    static boolean hasVectorVariants(int n) {
        Target host = Target.host();
        return n <= 8 && List.of("avx512bw", "avx512vbmi", "avx512vbmi2").stream().allMatch(host::hasFeature);
    }

    /** The library in a --rounding mode other than the default: every operation, all in the exact integer arithmetic. */
    static PositLibrary compile(int n, int es, RoundingMode mode) {
        NativeLibrary.Builder builder = builder(n, es).operations(StandardFunctions.all());
        mode.defines().forEach(d -> builder.define(d.substring(0, d.indexOf('=')), d.substring(d.indexOf('=') + 1)));
        return new PositLibrary(n, es, builder.build());
    }

    /** The library rounding stochastically with {@code srBits} random bits. */
    static PositLibrary compileStochastic(int n, int es, int srBits) {
        NativeLibrary.Builder builder = builder(n, es).operations(StandardFunctions.all());
        RoundingMode.STOCHASTIC.defines().forEach(d -> builder.define(d.substring(0, d.indexOf('=')), d.substring(d.indexOf('=') + 1)));
        return new PositLibrary(n, es, builder.define("BYODT_SR_BITS", Integer.toString(srBits)).build());
    }

    /** The library with only {@code functions} (name to shape), vector variants among them. */
    static NativeLibrary compileOnly(int n, int es, Map<String, FunctionShape> functions) {
        return builder(n, es).operations(functions).build();
    }

    /** The exact integer arithmetic (add, sub, mul, div, sqrt) forced for any N, so N <= 16 tests it too. */
    static PositLibrary compileIntegerArithmetic(int n, int es) {
        Map<String, FunctionShape> ops = new LinkedHashMap<>();
        for (String op : new String[]{"add", "sub", "mul", "div"}) ops.put(op, FunctionShape.BINARY);
        ops.put("sqrt", FunctionShape.UNARY);
        return new PositLibrary(n, es, builder(n, es).define("POSIT_INTEGER_ARITHMETIC", "1").operations(ops).build());
    }

    private static NativeLibrary.Builder builder(int n, int es) {
        NativeLibrary.Builder builder = NativeLibrary.builder(PositDatatypes.LIBRARY, "posit" + n + "es" + es, storageBits(n))
            .define("POSIT_N", Integer.toString(n)).define("POSIT_ES", Integer.toString(es))
            .accumulatorBits(accumulatorBits(n, es));
        Target.host().clangFlags().forEach(builder::flag);
        return builder;
    }

    /** The storage integer (as the harness passes it: the low storage bits) of an N-bit pattern: sign-extended. */
    int storage(long pattern) {
        long signed = pattern >= (1L << (n - 1)) ? pattern - (1L << n) : pattern;
        return storageBits == 32 ? (int) signed : (int) (signed & ((1L << storageBits) - 1));
    }

    int[] storage(long[] patterns) {
        int[] s = new int[patterns.length];
        for (int i = 0; i < s.length; i++) s[i] = storage(patterns[i]);
        return s;
    }

    /** The N-bit pattern of a storage integer the library returned. */
    long pattern(int storage) { return storage & ((1L << n) - 1); }

    @Override
    public void close() { lib.close(); }

    @Override
    public String toString() { return "posit" + n + "es" + es; }
}
