package dev.byodt.compiler.dtype;

import dev.byodt.compiler.dtype.builtin.Float32Datatypes;
import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * float32's tanh and erf (rational approximations, not the double routines the other functions use) against the
 * double routines: within the bounds float32.c promises (0.5 + 2^-5.9 ulp of the exact value for tanh, 0.5 +
 * 2^-12.7 for erf), so the correctly rounded result or its neighbour; NaN for NaN, +-0 for +-0. The default run
 * checks every float whose upper 16 bits are a multiple of a stride (8 for tanh, 2^29 floats: every sign and
 * exponent, the zeros, infinities and a NaN, and in each binade 16 runs of 65536 consecutive floats; 128 for
 * erf, a run a binade, as its reference sums 150 terms with a division each); -Pexhaustive checks every one of the
 * 2^32. Compiled for this CPU (-march=native, as the JIT compiles models) so that the check vectorizes.
 */
@Execution(ExecutionMode.CONCURRENT)
class Float32ApproximationsTest {
    /** The reference's own error, 2^-21 ulp, added to each documented bound. */
    static final double REFERENCE_ULP = Math.pow(2, -21);
    static final double TANH_BOUND_ULP = 0.5 + Math.pow(2, -5.9) + REFERENCE_ULP;
    static final double ERF_BOUND_ULP = 0.5 + Math.pow(2, -12.7) + REFERENCE_ULP;

    @Test
    void sampledTanhWithinTheDocumentedBound() {
        checkFloatsWithUpperBitsEvery("tanh", 8, TANH_BOUND_ULP);
    }

    @Test
    void sampledErfWithinTheDocumentedBound() {
        checkFloatsWithUpperBitsEvery("erf", 128, ERF_BOUND_ULP);
    }

    @Tag("exhaustive")
    @Test
    void everyFloatsTanhWithinTheDocumentedBound() {
        checkFloatsWithUpperBitsEvery("tanh", 1, TANH_BOUND_ULP);
    }

    @Tag("exhaustive")
    @Test
    void everyFloatsErfWithinTheDocumentedBound() {
        checkFloatsWithUpperBitsEvery("erf", 1, ERF_BOUND_ULP);
    }

    /** float32's {@code function} on every float whose upper 16 bits are a multiple of {@code stride}. */
    private static void checkFloatsWithUpperBitsEvery(String function, int stride, double boundUlp) {
        String worstError = function + "_worst_error";
        LibrarySource source = BuiltInLibraries.of(Float32Datatypes.LIBRARY, "dev/byodt/datatypes/float32/approximation_error.c");
        try (NativeLibrary lib = NativeLibrary.builder(source, "float32", 32).flag("-march=native")
                 .operations(Map.of(worstError, FunctionShape.UNARY)).build()) {
            int[] highs = IntStream.range(0, 1 << 16).filter(high -> high % stride == 0).toArray();
            int chunk = 1 << 9;
            int[] worst = IntStream.range(0, highs.length / chunk).parallel()
                .mapToObj(c -> lib.unary(worstError, Arrays.copyOfRange(highs, c * chunk, (c + 1) * chunk)))
                .flatMapToInt(IntStream::of).toArray();
            double worstUlp = 0;
            for (int i = 0; i < worst.length; i++) {
                assertNotEquals(-1, worst[i], function + ": a NaN or signed zero is wrong among the floats 0x"
                    + Integer.toHexString(highs[i]) + "xxxx");
                worstUlp = Math.max(worstUlp, Integer.toUnsignedLong(worst[i]) / 1048576.0);
            }
            System.out.printf("float32 %s: %d floats, worst error %.6f ulp%n", function, (long) highs.length << 16, worstUlp);
            assertTrue(worstUlp <= boundUlp, function + ": worst error " + worstUlp + " ulp exceeds " + boundUlp);
        }
    }
}
