package dev.byodt.compiler.dtype.floats;

import dev.byodt.compiler.dtype.harness.AllPairs;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.function.IntBinaryOperator;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every one of the 2^32 pairs of float16 operands for add and mul, checked by {@link Float16JavaArithmetic}
 * (itself checked against the exact reference by {@link Float16JavaArithmeticTest}), for the library compiled
 * both ways a model may get it: with the host's conversion instructions (F16C on x86-64) and with the integer
 * code every other target uses. Minutes long: run with {@code mvn -pl compiler -am test -Pexhaustive}.
 */
@Tag("exhaustive")
class Float16AllPairsTest {
    @Test
    void everyPairOfAddAndMul() {
        for (MinifloatLibraryTest.Format format : new MinifloatLibraryTest.Format[]{
            MinifloatLibraryTest.FLOAT16, MinifloatLibraryTest.FLOAT16_HOST}) {
            try (NativeLibrary lib = format.compile()) {
                checkEveryPair(format, lib, "add", Float16JavaArithmetic::add);
                checkEveryPair(format, lib, "mul", Float16JavaArithmetic::mul);
            }
        }
    }

    private static void checkEveryPair(MinifloatLibraryTest.Format format, NativeLibrary lib, String op, IntBinaryOperator expected) {
        AllPairs.Outcome outcome = AllPairs.compare(lib, op, expected);
        assertEquals(0, outcome.wrong(), format + " " + op + ": " + outcome.wrong() + " wrong pairs, first 0x" + outcome.firstWrongHex());
        System.out.println(format + " " + op + ": all 4294967296 pairs exact in " + outcome.seconds() + " s");
    }
}
