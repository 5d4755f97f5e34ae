package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.reference.Rational;
import dev.byodt.compiler.dtype.reference.Rounding;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.fail;

/** Runs a C function over arrays and compares every result with the reference, bit for bit. */
final class PositChecks {
    private PositChecks() {}

    interface Binary { long apply(long a, long b); }

    interface Unary { long apply(long a); }

    interface MathUnary { PositMathReference.Result apply(long a); }

    interface MathBinary { PositMathReference.Result apply(long a, long b); }

    static String hex(PositLibrary lib, long p) {
        return String.format("0x%0" + ((lib.n + 3) / 4) + "x", p);
    }

    static String describe(PositLibrary lib, PositReference ref, long p) {
        return hex(lib, p) + (ref.isNar(p) ? " (NaR)" : " (" + ref.value(p).toDouble() + ")");
    }

    /**
     * add, sub and mul of every pair in the library a model of posit{@code ref.n} es {@code ref.es} gets; sub
     * takes the right operands negated, so that it computes the same sums as add.
     */
    static void sumsDifferencesAndProducts(PositReference ref, List<long[]> pairs) {
        long[] a = pairs.stream().mapToLong(pair -> pair[0]).toArray();
        long[] b = pairs.stream().mapToLong(pair -> pair[1]).toArray();
        try (PositLibrary lib = PositLibrary.compile(ref.n, ref.es)) {
            binary(lib, ref, "add", a, b, ref::add);
            binary(lib, ref, "sub", a, Arrays.stream(b).map(ref::negate).toArray(), ref::sub);
            binary(lib, ref, "mul", a, b, ref::mul);
        }
    }

    static void binary(PositLibrary lib, PositReference ref, String op, long[] a, long[] b, Binary expected) {
        int[] actual = lib.lib.binary(op, lib.storage(a), lib.storage(b));
        long[] wanted = new long[a.length];
        IntStream.range(0, a.length).parallel().forEach(i -> wanted[i] = expected.apply(a[i], b[i]));
        report(lib, op, a.length, i -> actual[i] == lib.storage(wanted[i]) ? null
            : op + "(" + describe(lib, ref, a[i]) + ", " + describe(lib, ref, b[i]) + ") = " + describeStorage(lib, ref, actual[i])
            + ", expected " + describe(lib, ref, wanted[i]));
    }

    static void unary(PositLibrary lib, PositReference ref, String op, long[] a, Unary expected) {
        int[] actual = lib.lib.unary(op, lib.storage(a));
        long[] wanted = new long[a.length];
        IntStream.range(0, a.length).parallel().forEach(i -> wanted[i] = expected.apply(a[i]));
        report(lib, op, a.length, i -> actual[i] == lib.storage(wanted[i]) ? null
            : op + "(" + describe(lib, ref, a[i]) + ") = " + describeStorage(lib, ref, actual[i]) + ", expected " + describe(lib, ref, wanted[i]));
    }

    /**
     * The elementary functions (exact except next to a rounding boundary), floor, ceil and round, and every
     * conversion, on every one of {@code all} (and the conversions into posits at their interesting arguments).
     */
    static void functionsAndConversions(PositLibrary lib, PositReference ref, long[] all) {
        PositMathReference math = new PositMathReference(ref);
        math(lib, ref, "exp", all, math::exp);
        math(lib, ref, "log", all, math::log);
        math(lib, ref, "tanh", all, math::tanh);
        math(lib, ref, "sigmoid", all, math::sigmoid);
        math(lib, ref, "erf", all, math::erf);
        sinesAndRoundings(lib, ref, all);
        PositConversionChecks.all(lib, ref, all);
    }

    /** sin and cos (correctly rounded but next to a midpoint), floor, ceil and round (exact) on every one of a. */
    static void sinesAndRoundings(PositLibrary lib, PositReference ref, long[] a) {
        PositMathReference math = new PositMathReference(ref);
        math(lib, ref, "sin", a, math::sin);
        math(lib, ref, "cos", a, math::cos);
        unary(lib, ref, "floor", a, p -> integral(ref, p, Rounding::floor));
        unary(lib, ref, "ceil", a, p -> integral(ref, p, Rounding::ceil));
        unary(lib, ref, "round", a, p -> integral(ref, p, Rounding::nearestEven));
    }

    /** The posit's exact value rounded to an integer, which is a posit (rounding it is exact); NaR stays NaR. */
    private static long integral(PositReference ref, long p, Function<Rational, BigInteger> rounding) {
        if (ref.isNar(p)) return ref.nar();
        Exact v = ref.value(p);
        return ref.round(new Exact(rounding.apply(new Rational(v.num(), v.den())), BigInteger.ONE));
    }

    /** An elementary function: exact except next to a midpoint (see {@link PositMathReference#tolerated}). */
    static void math(PositLibrary lib, PositReference ref, String op, long[] a, MathUnary expected) {
        PositMathReference math = new PositMathReference(ref);
        int[] actual = lib.lib.unary(op, lib.storage(a));
        PositMathReference.Result[] wanted = new PositMathReference.Result[a.length];
        IntStream.range(0, a.length).parallel().forEach(i -> wanted[i] = expected.apply(a[i]));
        int[] tolerated = new int[1];
        report(lib, op, a.length, i -> {
            if (actual[i] == lib.storage(wanted[i].pattern())) return null;
            if (actual[i] == lib.storage(lib.pattern(actual[i])) && math.tolerated(lib.pattern(actual[i]), wanted[i])) {
                tolerated[0]++;
                return null;
            }
            return op + "(" + describe(lib, ref, a[i]) + ") = " + describeStorage(lib, ref, actual[i]) + ", expected "
                + describe(lib, ref, wanted[i].pattern()) + " from " + wanted[i].value();
        });
        if (tolerated[0] > 0) System.out.println("  " + lib + " " + op + ": " + tolerated[0] + " results next to a midpoint differ from the double reference");
    }

    static void mathBinary(PositLibrary lib, PositReference ref, String op, long[] a, long[] b, MathBinary expected) {
        PositMathReference math = new PositMathReference(ref);
        int[] actual = lib.lib.binary(op, lib.storage(a), lib.storage(b));
        PositMathReference.Result[] wanted = new PositMathReference.Result[a.length];
        IntStream.range(0, a.length).parallel().forEach(i -> wanted[i] = expected.apply(a[i], b[i]));
        int[] tolerated = new int[1];
        report(lib, op, a.length, i -> {
            if (actual[i] == lib.storage(wanted[i].pattern())) return null;
            if (actual[i] == lib.storage(lib.pattern(actual[i])) && math.tolerated(lib.pattern(actual[i]), wanted[i])) {
                tolerated[0]++;
                return null;
            }
            return op + "(" + describe(lib, ref, a[i]) + ", " + describe(lib, ref, b[i]) + ") = " + describeStorage(lib, ref, actual[i])
                + ", expected " + describe(lib, ref, wanted[i].pattern()) + " from " + wanted[i].value();
        });
        if (tolerated[0] > 0) System.out.println("  " + lib + " " + op + ": " + tolerated[0] + " results next to a midpoint differ from the double reference");
    }

    static String describeStorage(PositLibrary lib, PositReference ref, int storage) {
        long p = lib.pattern(storage);
        String s = describe(lib, ref, p);
        return storage == lib.storage(p) ? s : s + " [storage 0x" + Integer.toHexString(storage) + " not sign-extended]";
    }

    /** Fails with the first mismatches (the function returns a message or null per index), else prints a tally. */
    static void report(PositLibrary lib, String op, int count, IntFunction<String> mismatch) {
        List<String> failures = new ArrayList<>();
        int total = 0;
        for (int i = 0; i < count; i++) {
            String m = mismatch.apply(i);
            if (m != null) {
                total++;
                if (failures.size() < 8) failures.add(m);
            }
        }
        if (total > 0) fail(lib + ": " + total + " of " + count + " wrong, e.g.\n  " + String.join("\n  ", failures));
        System.out.println(lib + " " + op + ": " + count + " cases exact");
    }

    /** Every N-bit pattern. */
    static long[] allPatterns(int n) {
        long[] all = new long[1 << n];
        for (int i = 0; i < all.length; i++) all[i] = i;
        return all;
    }
}
