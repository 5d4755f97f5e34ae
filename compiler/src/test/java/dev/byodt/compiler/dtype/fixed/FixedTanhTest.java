package dev.byodt.compiler.dtype.fixed;

import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.reference.FixedReference;
import dev.byodt.compiler.dtype.reference.Hyperbolic;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * fixed_tanh.c's tanh and sigmoid are correctly rounded on every value of every fxp8_P and fxp16_P, both
 * roundings (and wrapping, which conversions ignore): its table's error bound is only proven for the inputs these
 * formats have, so all of them are checked, against {@link Hyperbolic}'s exact rounding.
 */
class FixedTanhTest {
    static Stream<FixedLibraryTest.Format> everyFormat() {
        Stream<FixedLibraryTest.Format> roundings = Stream.of(8, 16).flatMap(n -> IntStream.range(0, n).boxed()
            .flatMap(p -> Stream.of(new FixedLibraryTest.Format(n, p, false, false), new FixedLibraryTest.Format(n, p, false, true))));
        return Stream.concat(roundings, Stream.of(new FixedLibraryTest.Format(16, 13, true, false)));
    }

    @ParameterizedTest
    @MethodSource("everyFormat")
    void tanhAndSigmoidAreCorrectlyRoundedOnEveryValue(FixedLibraryTest.Format f) {
        FixedReference ref = f.reference();
        int[] every = IntStream.range(0, 1 << f.n()).toArray();
        try (NativeLibrary lib = f.compile()) {
            int[] tanh = lib.unary("tanh", every), sigmoid = lib.unary("sigmoid", every);
            for (int x : every) {
                long s = ref.signed(x);
                check(f, "tanh", x, tanh[x], Hyperbolic.tanh(ref, s, f.p()));
                check(f, "sigmoid", x, sigmoid[x], Hyperbolic.sigmoid(ref, s, f.p()));
            }
        }
    }

    private static void check(FixedLibraryTest.Format f, String op, int x, int actual, int expected) {
        if (actual != expected) fail(String.format("%s %s(0x%X) = 0x%X, expected 0x%X", f, op, x, actual, expected));
    }
}
