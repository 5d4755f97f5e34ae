package dev.byodt.compiler.dtype;

import dev.byodt.compiler.dtype.builtin.Float32Datatypes;
import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * float32's exp and sigmoid (a table of 2^(j/64) and a degree-5 series, float32.c's exp_of_float) return the very
 * bits of the double routines rounded to float (exp_d's degree-14 series, sigmoid_d), which they replaced for
 * speed. The default run checks every float whose upper 16 bits are a multiple of 64 (2^26 floats: every sign and
 * a run of 65536 in each binade's part, the zeros, infinities and NaNs); -Pexhaustive checks all 2^32, as
 * scripts/float32-same-bits does without Maven. Compiled for this CPU (-march=native, as the JIT compiles models)
 * twice: exp_of_float lets each target fuse its multiply-adds, so once with this CPU's fused multiply-add and once
 * without it (-mno-fma), as on targets that have none; both ways must give these bits.
 */
@Execution(ExecutionMode.CONCURRENT)
class Float32SameBitsTest {
    @ParameterizedTest(name = "fused multiply-add: {0}")
    @ValueSource(booleans = {true, false})
    void sampledExpKeepsTheBits(boolean fused) { assertNoMismatchAmongUpperBitsEvery("exp", 64, fused); }

    @ParameterizedTest(name = "fused multiply-add: {0}")
    @ValueSource(booleans = {true, false})
    void sampledSigmoidKeepsTheBits(boolean fused) { assertNoMismatchAmongUpperBitsEvery("sigmoid", 64, fused); }

    @Tag("exhaustive")
    @ParameterizedTest(name = "fused multiply-add: {0}")
    @ValueSource(booleans = {true, false})
    void everyFloatsExpKeepsTheBits(boolean fused) { assertNoMismatchAmongUpperBitsEvery("exp", 1, fused); }

    @Tag("exhaustive")
    @ParameterizedTest(name = "fused multiply-add: {0}")
    @ValueSource(booleans = {true, false})
    void everyFloatsSigmoidKeepsTheBits(boolean fused) { assertNoMismatchAmongUpperBitsEvery("sigmoid", 1, fused); }

    /**
     * float32's {@code function} against the double routine on every float whose upper 16 bits are a multiple of
     * {@code stride}, compiled with this CPU's fused multiply-add or without it.
     */
    private static void assertNoMismatchAmongUpperBitsEvery(String function, int stride, boolean fused) {
        String mismatches = function + "_mismatches";
        LibrarySource source = BuiltInLibraries.of(Float32Datatypes.LIBRARY, "dev/byodt/datatypes/float32/same_bits.c");
        NativeLibrary.Builder builder = NativeLibrary.builder(source, "float32", 32).flag("-march=native");
        if (!fused) builder.flag("-mno-fma");
        try (NativeLibrary lib = builder.operations(Map.of(mismatches, FunctionShape.UNARY)).build()) {
            int[] highs = IntStream.range(0, 1 << 16).filter(high -> high % stride == 0).toArray();
            int chunk = 1 << 8;
            int[] counts = IntStream.range(0, highs.length / chunk).parallel()
                .mapToObj(c -> lib.unary(mismatches, Arrays.copyOfRange(highs, c * chunk, (c + 1) * chunk)))
                .flatMapToInt(IntStream::of).toArray();
            for (int i = 0; i < counts.length; i++) {
                assertEquals(0, counts[i], function + ": other bits than " + function + "_d's on " + counts[i]
                    + " of the floats 0x" + Integer.toHexString(highs[i]) + "xxxx");
            }
            System.out.printf("float32 %s (fused multiply-add: %b): %d floats, the bits of %s_d on every one%n", function, fused,
                (long) highs.length << 16, function);
        }
    }
}
