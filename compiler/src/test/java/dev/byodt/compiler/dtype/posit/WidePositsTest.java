package dev.byodt.compiler.dtype.posit;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Posits wider than 8 bits: posit32 with every es, 10^5 seeded pairs and values for every operation and
 * conversion, and widths from 9 to 31 bits with every es, 3000 pairs each, in the integer arithmetic: by default one
 * width either side of each word boundary, each with one es in turn, the others with -Pexhaustive.
 */
@Execution(ExecutionMode.CONCURRENT)
class WidePositsTest {
    /** The default run's widths in the integer arithmetic, and the exhaustive run's others. */
    private static final int[] WIDTHS = {9, 15, 17, 20, 24, 28, 31}, OTHER_WIDTHS = {11, 12, 18, 19, 21, 22, 23, 25, 26, 27, 29, 30};

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void posit32(int es) {
        PositReference ref = new PositReference(32, es);
        PositMathReference math = new PositMathReference(ref);
        long[][] pairs = Posit16Test.pairs(ref, new Random(32 + es), 100_000);
        long[] a = pairs[0], b = pairs[1];
        try (PositLibrary lib = PositLibrary.compile(32, es)) {
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
            PositChecks.sinesAndRoundings(lib, ref, some);
            PositConversionChecks.toFloat(lib, ref, a);
            PositConversionChecks.toInt(lib, ref, a);
            PositConversionChecks.fromFloat(lib, ref, Posit16Test.randomFloats(new Random(3232 + es), 100_000, Math.min(30 << es, 118)));
            PositConversionChecks.fromDouble(lib, ref, PositConversionChecks.doublesAround(ref));
            PositConversionChecks.fromInt(lib, ref, PositConversionChecks.interestingInts(new Random(3233), 100_000));
        }
    }

    /**
     * Widths between the tested 8, 16 and 32 bits, one either side of each word boundary, each with one exponent
     * size, es 0, 1, 2, 3, 0, ... in turn (every es is checked; each width's other three with -Pexhaustive).
     */
    @Test
    void otherWidthsEachWithOneExponentSize() throws Exception {
        checkWidths(IntStream.range(0, WIDTHS.length).mapToObj(i -> new int[]{WIDTHS[i], i % 4}));
    }

    /** What {@link #otherWidthsEachWithOneExponentSize} leaves out: its widths' other es, and more widths with every es. */
    @Tag("exhaustive")
    @Test
    void everyOtherWidthAndExponentSize() throws Exception {
        Stream<int[]> otherExponentSizes = IntStream.range(0, WIDTHS.length).boxed()
            .flatMap(i -> IntStream.rangeClosed(0, 3).filter(es -> es != i % 4).mapToObj(es -> new int[]{WIDTHS[i], es}));
        Stream<int[]> otherWidths = IntStream.of(OTHER_WIDTHS).boxed()
            .flatMap(n -> IntStream.rangeClosed(0, 3).mapToObj(es -> new int[]{n, es}));
        checkWidths(Stream.concat(otherExponentSizes, otherWidths));
    }

    /** The libraries build two at a time. */
    private static void checkWidths(Stream<int[]> instances) throws Exception {
        ExecutorService builders = Executors.newFixedThreadPool(2);
        try {
            List<Future<PositLibrary>> builds = new ArrayList<>();
            for (int[] instance : instances.toList()) {
                builds.add(builders.submit(() -> PositLibrary.compileIntegerArithmetic(instance[0], instance[1])));
            }
            for (Future<PositLibrary> build : builds) {
                try (PositLibrary lib = build.get()) {
                    PositReference ref = new PositReference(lib.n, lib.es);
                    long[][] pairs = Posit16Test.pairs(ref, new Random(lib.n * 4L + lib.es), 3000);
                    long[] a = pairs[0], b = pairs[1];
                    PositChecks.binary(lib, ref, "add", a, b, ref::add);
                    PositChecks.binary(lib, ref, "sub", a, b, ref::sub);
                    PositChecks.binary(lib, ref, "mul", a, b, ref::mul);
                    PositChecks.binary(lib, ref, "div", a, b, ref::div);
                    PositChecks.unary(lib, ref, "sqrt", a, ref::sqrt);
                }
            }
        } finally {
            builders.shutdownNow();
        }
    }
}
