package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.BuiltInLibraries;
import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.harness.StandardFunctions;

import java.util.LinkedHashMap;
import java.util.Map;

/** posit.c compiled for one instance, with pattern conversions between the reference's N-bit patterns and storage. */
final class PositLibrary implements AutoCloseable {
    static final String SOURCE = "dev/byodt/datatypes/posit/posit.c";

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

    /** The library as a model gets it (float32 and double arithmetic for N <= 16 on this host). */
    static PositLibrary compile(int n, int es) {
        return new PositLibrary(n, es, builder(n, es).operations(StandardFunctions.all()).build());
    }

    /** The exact integer arithmetic (add, sub, mul, div, sqrt) forced for any N, so N <= 16 tests it too. */
    static PositLibrary compileIntegerArithmetic(int n, int es) {
        Map<String, FunctionShape> ops = new LinkedHashMap<>();
        for (String op : new String[]{"add", "sub", "mul", "div"}) ops.put(op, FunctionShape.BINARY);
        ops.put("sqrt", FunctionShape.UNARY);
        return new PositLibrary(n, es, builder(n, es).define("POSIT_INTEGER_ARITHMETIC", "1").operations(ops).build());
    }

    private static NativeLibrary.Builder builder(int n, int es) {
        return NativeLibrary.builder(BuiltInLibraries.of(SOURCE), "posit" + n + "es" + es, storageBits(n))
            .define("POSIT_N", Integer.toString(n)).define("POSIT_ES", Integer.toString(es))
            .accumulatorBits(accumulatorBits(n, es));
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
