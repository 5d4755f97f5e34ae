package dev.byodt.compiler.dtype.fixed;

import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.reference.FixedReference;
import dev.byodt.compiler.dtype.reference.Hyperbolic;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Set;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * fixed_tanh.c's tanh and sigmoid, and fixed.c's exp (in double), are correctly rounded on every value of every
 * fxp8_P and fxp16_P, both roundings (and wrapping, which conversions ignore), against {@link Hyperbolic}'s exact
 * rounding: fixed_tanh.c's error bound is only proven for the inputs these formats have, and models look these
 * functions up in tables of every value (FunctionTables), so every value is what a model computes. The default run checks
 * every fxp8_P and the fxp16_P the other fixed-point tests use; -Pexhaustive checks the other twelve P of fxp16.
 */
@Execution(ExecutionMode.CONCURRENT)
class FixedTanhTest {
    /** The P of fxp16 that {@link FixedLibraryTest} samples too; -Pexhaustive covers the rest. */
    private static final Set<Integer> DEFAULT_FXP16_P = Set.of(0, 8, 13, 15);

    static Stream<FixedLibraryTest.Format> defaultFormats() {
        return Stream.concat(roundings(8, p -> true), Stream.concat(roundings(16, DEFAULT_FXP16_P::contains),
            Stream.of(new FixedLibraryTest.Format(16, 13, true, false))));
    }

    static Stream<FixedLibraryTest.Format> otherFxp16Formats() {
        return roundings(16, p -> !DEFAULT_FXP16_P.contains(p));
    }

    private static Stream<FixedLibraryTest.Format> roundings(int n, IntPredicate fractionBits) {
        return IntStream.range(0, n).filter(fractionBits).boxed().flatMap(p -> Stream.of(
            new FixedLibraryTest.Format(n, p, false, false), new FixedLibraryTest.Format(n, p, false, true)));
    }

    @ParameterizedTest
    @MethodSource("defaultFormats")
    void tanhSigmoidAndExpAreCorrectlyRoundedOnEveryValue(FixedLibraryTest.Format f) {
        checkEveryValue(f);
    }

    @Tag("exhaustive")
    @ParameterizedTest
    @MethodSource("otherFxp16Formats")
    void tanhSigmoidAndExpAreCorrectlyRoundedOnEveryValueOfTheOtherFxp16(FixedLibraryTest.Format f) {
        checkEveryValue(f);
    }

    private static void checkEveryValue(FixedLibraryTest.Format f) {
        FixedReference ref = f.reference();
        int[] every = IntStream.range(0, 1 << f.n()).toArray();
        try (NativeLibrary lib = f.compile()) {
            int[] tanh = lib.unary("tanh", every), sigmoid = lib.unary("sigmoid", every), exp = lib.unary("exp", every);
            for (int x : every) {
                long s = ref.signed(x);
                check(f, "tanh", x, tanh[x], Hyperbolic.tanh(ref, s, f.p()));
                check(f, "sigmoid", x, sigmoid[x], Hyperbolic.sigmoid(ref, s, f.p()));
                check(f, "exp", x, exp[x], Hyperbolic.exp(ref, s, f.p()));
            }
        }
    }

    private static void check(FixedLibraryTest.Format f, String op, int x, int actual, int expected) {
        if (actual != expected) fail(String.format("%s %s(0x%X) = 0x%X, expected 0x%X", f, op, x, actual, expected));
    }
}
