package dev.byodt.compiler.dtype.posit;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

/**
 * Posits wider than 8 bits: posit32 (es 2) with 10^5 seeded pairs and values for every operation and conversion,
 * and every other width 9..32 and es 0..3 with a few thousand pairs of the arithmetic, so every instance runs once.
 */
class WidePositsTest {
    @Test
    void posit32() {
        PositReference ref = new PositReference(32, 2);
        PositMathReference math = new PositMathReference(ref);
        long[][] pairs = Posit16Test.pairs(ref, new Random(32), 100_000);
        long[] a = pairs[0], b = pairs[1];
        try (PositLibrary lib = PositLibrary.compile(32, 2)) {
            PositChecks.binary(lib, ref, "add", a, b, ref::add);
            PositChecks.binary(lib, ref, "sub", a, b, ref::sub);
            PositChecks.binary(lib, ref, "mul", a, b, ref::mul);
            PositChecks.binary(lib, ref, "div", a, b, ref::div);
            PositChecks.binary(lib, ref, "min", a, b, ref::min);
            PositChecks.binary(lib, ref, "max", a, b, ref::max);
            PositChecks.unary(lib, ref, "sqrt", a, ref::sqrt);
            PositChecks.unary(lib, ref, "neg", a, p -> ref.isNar(p) ? ref.nar() : ref.round(ref.value(p).negate()));
            long[] some = Arrays.copyOf(a, 20_000);
            PositChecks.math(lib, ref, "exp", some, math::exp);
            PositChecks.math(lib, ref, "log", some, math::log);
            PositChecks.math(lib, ref, "tanh", some, math::tanh);
            PositChecks.math(lib, ref, "sigmoid", some, math::sigmoid);
            PositConversionChecks.toFloat(lib, ref, a);
            PositConversionChecks.toInt(lib, ref, a);
            PositConversionChecks.fromFloat(lib, ref, Posit16Test.randomFloats(new Random(3232), 100_000));
            PositConversionChecks.fromDouble(lib, ref, PositConversionChecks.doublesAround(ref));
            PositConversionChecks.fromInt(lib, ref, PositConversionChecks.interestingInts(new Random(3233), 100_000));
        }
    }

    @Test
    void everyOtherWidthAndExponentSize() {
        for (int n = 9; n <= 32; n++) {
            for (int es = 0; es <= 3; es++) {
                if (n == 16 && es != 0 && es != 3) continue; // Posit16Test covers es 1 and 2
                if (n == 32 && es == 2) continue;
                PositReference ref = new PositReference(n, es);
                long[][] pairs = Posit16Test.pairs(ref, new Random(n * 4L + es), 3000);
                long[] a = pairs[0], b = pairs[1];
                try (PositLibrary lib = PositLibrary.compileIntegerArithmetic(n, es)) {
                    PositChecks.binary(lib, ref, "add", a, b, ref::add);
                    PositChecks.binary(lib, ref, "sub", a, b, ref::sub);
                    PositChecks.binary(lib, ref, "mul", a, b, ref::mul);
                    PositChecks.binary(lib, ref, "div", a, b, ref::div);
                    PositChecks.unary(lib, ref, "sqrt", a, ref::sqrt);
                }
            }
        }
    }
}
