package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.harness.RoundedF32Checks;
import dev.byodt.compiler.target.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * posit8 es 2's dot products under --accumulate dtype sum in float32 (docs/datatypes.md, "posit8 sums in float32"):
 * the float32 sum and product of every pair of posit8 values, rounded to posit8, are the exact sum and product
 * rounded ({@link PositReference}'s add and mul); and posit_rounded_x16.c's rounded_f32_x16, which rounds those sums
 * 16 lanes at a time, gives lane for lane the reference's rounding of rounded_f32's inputs ({@link
 * PositRoundedF32Test}) in their order (vectors that mix scales it rounds as x + c - c with others), of those at
 * scales with at least 0 fraction bits alone (vectors taking x + c - c, ties included) and of every float32 product
 * and sum of two posits, in order and shuffled, for posits of up to 8 bits it compiles for.
 */
class Posit8SumsInFloat32Test {
    @Test
    void float32SumsAndProductsRoundAsTheExactOnes() {
        PositReference r = new PositReference(8, 2);
        int sums = 0, inexactSums = 0;
        for (long a = 0; a < 256; a++) {
            if (r.isNar(a)) continue;
            for (long b = 0; b < 256; b++) {
                if (r.isNar(b)) continue;
                float x = r.toFloat(a), y = r.toFloat(b);
                assertEquals((double) x * y, x * y, "the product of " + x + " and " + y + " is exact in float32");
                assertEquals(r.mul(a, b), r.fromDouble(x * y), "posit8 " + x + " * " + y);
                assertEquals(r.add(a, b), r.fromDouble(x + y), "posit8 " + x + " + " + y);
                sums++;
                if ((double) x + y != x + y) inexactSums++;
            }
        }
        assertEquals(255 * 255, sums);
        assertTrue(inexactSums > 0, "some float32 sums round: the check reaches the case the proof's second branch covers");
    }

    @ParameterizedTest(name = "posit{0} es {1}")
    @CsvSource({"8, 2", "8, 0", "8, 1", "7, 3", "6, 2"})
    void vectorVariantRoundsAsTheReference(int n, int es) {
        PositReference r = new PositReference(n, es);
        String variant = "rounded_f32_x16";
        // byodt compiles libraries with -mavx512bw where the CPU has it (Target.X86_LIBRARY_FEATURES), AVX-512F with it.
        boolean compiled = Target.host().hasFeature("avx512bw");
        Map<String, FunctionShape> functions = compiled
            ? Map.of("rounded_f32", FunctionShape.FLOAT_TO_FLOAT, variant, FunctionShape.VECTOR_FLOAT_TO_FLOAT)
            : Map.of("rounded_f32", FunctionShape.FLOAT_TO_FLOAT);
        List<float[]> inputs = inputs(n, es, r);
        try (NativeLibrary lib = PositLibrary.compileOnly(n, es, functions)) {
            for (float[] x : inputs) {
                String what = "posit" + n + " es " + es;
                RoundedF32Checks.assertRoundsAs(what, x, lib.floatToFloat("rounded_f32", x), v -> r.toDouble(r.fromDouble(v)));
                if (compiled) RoundedF32Checks.assertRoundsAs(what + " (16 lanes)", x, lib.floatToFloat(variant, x), v -> r.toDouble(r.fromDouble(v)));
            }
        }
    }

    private static List<float[]> inputs(int n, int es, PositReference r) {
        float[] around = PositRoundedF32Test.inputs(n, es, r);
        List<Float> withFraction = new ArrayList<>(), dots = new ArrayList<>();
        int top = (n - 2 - es) << es;
        for (float v : around) {
            if (v == 0 || Float.isFinite(v) && Math.abs(v) >= Math.scalb(1.0f, -top) && Math.abs(v) < Math.scalb(1.0f, top)) withFraction.add(v);
        }
        for (long a = 0; a < r.nar() * 2; a++) {
            for (long b = 0; b < r.nar() * 2; b++) {
                if (r.isNar(a) || r.isNar(b)) continue;
                dots.add(r.toFloat(a) * r.toFloat(b));
                dots.add(r.toFloat(a) + r.toFloat(b));
            }
        }
        List<Float> shuffled = new ArrayList<>(dots);
        Collections.shuffle(shuffled, new Random(20261127L + n * 4L + es));
        return List.of(around, RoundedF32Checks.array(withFraction), RoundedF32Checks.array(dots), RoundedF32Checks.array(shuffled));
    }
}
