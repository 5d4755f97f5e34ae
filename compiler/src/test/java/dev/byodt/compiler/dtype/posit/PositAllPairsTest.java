package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.harness.AllPairs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Comparator;
import java.util.function.IntBinaryOperator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every pair of operands of posit add for every instance with 9 <= N <= 16 and es 0..3 (up to 2^32 pairs each),
 * sub where N <= 14 (sub is add with the right operand negated; larger N would double the run for little), and
 * posit16 es 2 mul, checked by {@link PositTableRounding} (itself checked against the exact reference by
 * {@link PositTableRoundingTest}). posit.c adds these in float32 without an error term and proves that exact;
 * this is the check of every instance. Minutes per 16-bit instance: run with
 * {@code mvn -pl compiler -am test -Pexhaustive}.
 */
@Tag("exhaustive")
class PositAllPairsTest {
    static final int LARGEST_N_WITH_SUB = 14;

    /** The instances, 16-bit ones first, so that a run cut short has done those. */
    static Stream<Arguments> largestFirst() {
        return PositTableRoundingTest.instances().sorted(Comparator.comparingInt(a -> -(Integer) a.get()[0]));
    }

    @ParameterizedTest(name = "posit{0}es{1}")
    @MethodSource("largestFirst")
    void everyPairOfAddAndSub(int n, int es) {
        PositTableRounding table = new PositTableRounding(n, es);
        try (PositLibrary lib = PositLibrary.compile(n, es)) {
            check(lib, "add", table::add);
            if (n <= LARGEST_N_WITH_SUB) check(lib, "sub", table::sub);
        }
    }

    @Test
    void everyPairOfPosit16Mul() {
        try (PositLibrary lib = PositLibrary.compile(16, 2)) {
            check(lib, "mul", new PositTableRounding(16, 2)::mul);
        }
    }

    private static void check(PositLibrary lib, String op, IntBinaryOperator expected) {
        AllPairs.Outcome outcome = AllPairs.compare(lib.lib, op, lib.n, p -> lib.storage(p), r -> (int) lib.pattern(r), expected);
        assertEquals(0, outcome.wrong(), lib + " " + op + ": " + outcome.wrong() + " wrong pairs, first " + outcome.firstWrongHex());
        System.out.println(lib + " " + op + ": all " + (1L << 2 * lib.n) + " pairs exact in " + outcome.seconds() + " s");
    }
}
