package dev.byodt.compiler.dtype.posit;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every posit of 2 to 8 bits, es 0 to 3: every value for the unary operations and the conversions, and every pair
 * for the binary ones, in the library a model gets (float32 and double arithmetic, and the vector variants of add,
 * sub and mul where this host has them) and in its exact integer arithmetic (the path of N > 16). Libraries are
 * built two at a time ahead of the checks: on a cold cache, linking them is most of this test's time.
 */
@Execution(ExecutionMode.CONCURRENT)
class SmallPositsTest {
    @Test
    void everyValueAndEveryPair() throws Exception {
        ExecutorService builders = Executors.newFixedThreadPool(2);
        try {
            List<Future<PositLibrary[]>> builds = new ArrayList<>();
            for (int n = 2; n <= 8; n++) {
                for (int es = 0; es <= 3; es++) {
                    int bits = n, exponentBits = es;
                    builds.add(builders.submit(() -> new PositLibrary[]{
                        PositLibrary.compile(bits, exponentBits), PositLibrary.compileIntegerArithmetic(bits, exponentBits)}));
                }
            }
            for (Future<PositLibrary[]> build : builds) {
                PositLibrary[] libs = build.get();
                try (PositLibrary model = libs[0]; PositLibrary integer = libs[1]) {
                    PositReference ref = new PositReference(model.n, model.es);
                    long[][] ab = everyPair(ref);
                    checkAll(model, integer, ref, ab[0], ab[1]);
                }
            }
        } finally {
            builders.shutdownNow();
        }
    }

    /** Every pair of N-bit patterns, as the left operands and the right ones. */
    static long[][] everyPair(PositReference ref) {
        int count = 1 << ref.n;
        long[] a = new long[count * count], b = new long[count * count];
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < count; j++) { a[i * count + j] = i; b[i * count + j] = j; }
        }
        return new long[][]{a, b};
    }

    /** Every operation: the binary ones on the pairs (a[i], b[i]), the unary ones and conversions on every value. */
    static void checkAll(PositLibrary lib, PositLibrary integer, PositReference ref, long[] a, long[] b) {
        long[] all = PositChecks.allPatterns(lib.n);
        for (PositLibrary l : new PositLibrary[]{lib, integer}) {
            PositChecks.binary(l, ref, "add", a, b, ref::add);
            PositChecks.binary(l, ref, "sub", a, b, ref::sub);
            PositChecks.binary(l, ref, "mul", a, b, ref::mul);
            PositChecks.binary(l, ref, "div", a, b, ref::div);
            PositChecks.unary(l, ref, "sqrt", all, ref::sqrt);
        }
        if (PositLibrary.hasVectorVariants(lib.n)) {
            // Bit for bit the scalar functions' results, which were just compared with the reference.
            int[] sa = lib.storage(a), sb = lib.storage(b);
            for (String variant : PositLibrary.VECTOR_VARIANTS) {
                String op = variant.substring(0, variant.indexOf("_x"));
                assertArrayEquals(lib.lib.binary(op, sa, sb), lib.lib.binary(variant, sa, sb), lib + " " + variant);
            }
        }
        PositChecks.binary(lib, ref, "min", a, b, ref::min);
        PositChecks.binary(lib, ref, "max", a, b, ref::max);
        PositMathReference math = new PositMathReference(ref);
        PositChecks.mathBinary(lib, ref, "pow", a, b, math::pow);
        for (String op : new String[]{"lt", "le", "gt", "ge", "eq", "ne"}) {
            int[] actual = lib.lib.compare(op, lib.storage(a), lib.storage(b));
            for (int i = 0; i < a.length; i++) {
                int c = ref.compare(a[i], b[i]);
                boolean expected = switch (op) {
                    case "lt" -> c < 0; case "le" -> c <= 0; case "gt" -> c > 0; case "ge" -> c >= 0; case "eq" -> c == 0; default -> c != 0;
                };
                if ((expected ? 1 : 0) != actual[i]) fail(lib + " " + op + "(" + a[i] + ", " + b[i] + ") = " + actual[i]);
            }
        }
        PositChecks.unary(lib, ref, "neg", all, p -> ref.isNar(p) ? ref.nar() : ref.round(ref.value(p).negate()));
        PositChecks.unary(lib, ref, "abs", all, p -> ref.isNar(p) ? ref.nar() : ref.round(ref.value(p).abs()));
        PositChecks.functionsAndConversions(lib, ref, all);
        assertEquals(lib.storage(ref.negate(ref.maxPos())), lib.lib.constant("lowest"), lib + " lowest = -maxPos");
    }
}
