package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.PositScales;
import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.harness.RoundedF32Checks;
import dev.byodt.compiler.target.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * posit_fraction_x16.c's vector variants for posits of 9 to 16 bits, 16 lanes at a time, lane for lane against
 * {@link PositReference}: rounded_f32_with_fraction_x16 on the inputs of {@link PositRoundedF32WithFractionTest}
 * (zeros and the float32s of the scales with a fraction bit, ties included), and rounded_f32_x16 on those (vectors
 * taking the table's rounding), on {@link PositRoundedF32Test}'s in their order (vectors mixing them with zeros'
 * neighbours, values below minPos or beyond maxPos, infinities and NaNs, which take rounded_f32's code), and on the
 * float32 products and sums of 200,000 seeded pairs of posits, as a dot product's sums meet them. Instances whose
 * scales with a fraction bit span more than 128 exponents (posit16 es 3) have no variant: it would not compile. The
 * default run checks posit16 es 2 and two narrower posits of other es, -Pexhaustive the other posit16s and two more.
 */
@Execution(ExecutionMode.CONCURRENT)
class PositFractionVariantsTest {
    static final int PAIRS = 200_000;

    @ParameterizedTest(name = "posit{0} es {1}")
    @CsvSource({"16, 2", "12, 1", "11, 3"})
    void vectorVariantsRoundAsTheReference(int n, int es) {
        checkVariants(n, es);
    }

    @Tag("exhaustive")
    @ParameterizedTest(name = "posit{0} es {1}")
    @CsvSource({"16, 0", "16, 1", "10, 2", "9, 0"})
    void vectorVariantsOfTheOtherInstancesRoundAsTheReference(int n, int es) {
        checkVariants(n, es);
    }

    private static void checkVariants(int n, int es) {
        PositReference r = new PositReference(n, es);
        PositScales scales = new PositScales(n, es);
        assertTrue(scales.highestScale() - scales.lowestScale() + 1 <= 128, "the instance's scales fit the table");
        // byodt compiles libraries with -mavx512bw and -mavx512vbmi where the CPU has them (Target.X86_LIBRARY_FEATURES).
        boolean compiled = Target.host().hasFeature("avx512bw") && Target.host().hasFeature("avx512vbmi");
        Map<String, FunctionShape> functions = new LinkedHashMap<>();
        functions.put("rounded_f32", FunctionShape.FLOAT_TO_FLOAT);
        if (compiled) {
            functions.put("rounded_f32_with_fraction_x16", FunctionShape.VECTOR_FLOAT_TO_FLOAT);
            functions.put("rounded_f32_x16", FunctionShape.VECTOR_FLOAT_TO_FLOAT);
        }
        float[] withFraction = PositRoundedF32WithFractionTest.inputs(n, es, r, scales);
        String what = "posit" + n + " es " + es;
        try (NativeLibrary lib = PositLibrary.compileOnly(n, es, functions)) {
            for (float[] x : List.of(withFraction, PositRoundedF32Test.inputs(n, es, r), dotValues(n, es, r))) {
                RoundedF32Checks.assertRoundsAs(what, x, lib.floatToFloat("rounded_f32", x), v -> r.toDouble(r.fromDouble(v)));
                if (compiled) {
                    RoundedF32Checks.assertRoundsAs(what + " (16 lanes)", x, lib.floatToFloat("rounded_f32_x16", x),
                        v -> r.toDouble(r.fromDouble(v)));
                }
            }
            if (compiled) {
                RoundedF32Checks.assertRoundsAs(what + " (16 lanes, with a fraction bit)", withFraction,
                    lib.floatToFloat("rounded_f32_with_fraction_x16", withFraction), v -> r.toDouble(r.fromDouble(v)));
            }
        }
    }

    /** The float32 product and sum of each of {@link #PAIRS} seeded pairs of posits (NaR left out). */
    private static float[] dotValues(int n, int es, PositReference r) {
        Random random = new Random(20261128L + n * 4L + es);
        List<Float> values = new ArrayList<>();
        while (values.size() < 2 * PAIRS) {
            long a = random.nextLong(1L << n), b = random.nextLong(1L << n);
            if (r.isNar(a) || r.isNar(b)) continue;
            values.add(r.toFloat(a) * r.toFloat(b));
            values.add(r.toFloat(a) + r.toFloat(b));
        }
        return RoundedF32Checks.array(values);
    }
}
