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
 * float32's tanh (a rational approximation, not the double routine the other functions use) against the double
 * routine: within 0.5 + 2^-5.9 ulp of the exact value, as float32.c promises, so the correctly rounded result or
 * its neighbour; NaN for NaN, +-0 for +-0. The default run checks every float whose upper 16 bits are a multiple
 * of 8 (2^29 floats: every sign and exponent, the zeros, infinities and a NaN, and in each binade 16 runs of
 * 65536 consecutive floats); -Pexhaustive checks every one of the 2^32. Compiled for this CPU (-march=native, as
 * the JIT compiles models) so that the check vectorizes and takes seconds.
 */
@Execution(ExecutionMode.CONCURRENT)
class Float32TanhTest {
    /** float32.c's bound, 0.5 + 2^-5.9 ulp, plus the reference's own error (2^-21 ulp). */
    static final double BOUND_ULP = 0.5 + Math.pow(2, -5.9) + Math.pow(2, -21);
    /** The default run's stride through the floats' upper 16 bits. */
    static final int SAMPLED_STRIDE = 8;

    @Test
    void sampledFloatsWithinTheDocumentedBound() {
        checkFloatsWithUpperBitsEvery(SAMPLED_STRIDE);
    }

    @Tag("exhaustive")
    @Test
    void everyFloatWithinTheDocumentedBound() {
        checkFloatsWithUpperBitsEvery(1);
    }

    /** Every float whose upper 16 bits are a multiple of {@code stride}. */
    private static void checkFloatsWithUpperBitsEvery(int stride) {
        LibrarySource source = BuiltInLibraries.of(Float32Datatypes.LIBRARY, "dev/byodt/datatypes/float32/tanh_error.c");
        try (NativeLibrary lib = NativeLibrary.builder(source, "float32", 32).flag("-march=native")
                 .operations(Map.of("tanh_worst_error", FunctionShape.UNARY)).build()) {
            int[] highs = IntStream.range(0, 1 << 16).filter(high -> high % stride == 0).toArray();
            int chunk = 1 << 9;
            int[] worst = IntStream.range(0, highs.length / chunk).parallel()
                .mapToObj(c -> lib.unary("tanh_worst_error", Arrays.copyOfRange(highs, c * chunk, (c + 1) * chunk)))
                .flatMapToInt(IntStream::of).toArray();
            double worstUlp = 0;
            for (int i = 0; i < worst.length; i++) {
                assertNotEquals(-1, worst[i], "tanh: a NaN or signed zero is wrong among the floats 0x"
                    + Integer.toHexString(highs[i]) + "xxxx");
                worstUlp = Math.max(worstUlp, Integer.toUnsignedLong(worst[i]) / 1048576.0);
            }
            System.out.printf("float32 tanh: %d floats, worst error %.6f ulp%n", (long) highs.length << 16, worstUlp);
            assertTrue(worstUlp <= BOUND_ULP, "worst error " + worstUlp + " ulp exceeds " + BOUND_ULP);
        }
    }
}
