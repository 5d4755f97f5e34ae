package dev.byodt.compiler.block;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import dev.byodt.compiler.kernel.Expr;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.select;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * posit32's products of elements take up to 56 bits, two doubles: a block's sum of them rounded once to float32 must
 * read each product's low part. Elements are given directly (28-bit posit32 values near 1, as a tensor scale or a scale
 * that is not a power of two makes them), so the low parts are not zero as they are for float32 inputs under power-of-two scales.
 */
class TwoPartProductsTest {
    private static final String NAME = "block[custom[posit]32,32,e8m0,floor]", UNDER_UE4M3 = "block[custom[posit]32,16,ue4m3,nearest,tensor]";

    /**
     * (1 + 2^-27)^2 + 3 2^-26 = 1 + 2^-24 + 2^-54: the float32 midpoint between 1 and 1 + 2^-23 plus the first product's
     * low part, so it rounds up, where the rounded products alone sum to the midpoint, which rounds to even, 1; the
     * same negated. And (1 + 2^-27)(1 - 2^-27) + 3 2^-24 = 1 + 3 2^-24 - 2^-54, just below the midpoint between
     * 1 + 2^-23 and 1 + 2^-22, so down, where the rounded product 1 (a tie in double, to even) puts the sum on it, up to
     * the even 1 + 2^-22. Every element is a posit32 (27 fraction bits near 1).
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aBlockSumReadsEachProductsLowPart(boolean inTheTiles) {
        double above = 1 + 0x1p-27, below = 1 - 0x1p-27;
        assertEquals(1 + 0x1p-23f, blockSum(NAME, new double[] {above, 3 * 0x1p-26}, new double[] {above, 1}, 1, inTheTiles));
        assertEquals(-1 - 0x1p-23f, blockSum(NAME, new double[] {-above, 3 * 0x1p-26}, new double[] {above, -1}, 1, inTheTiles));
        assertEquals(1 + 0x1p-23f, blockSum(NAME, new double[] {above, 3 * 0x1p-24}, new double[] {below, 1}, 1, inTheTiles));
    }

    /**
     * Under UE4M3 scales, whose product is not a power of two, a product of posit32 elements times the scales takes up
     * to 64 bits: ((1 + 2^-27)^2 + 15 2^-26) 1.25 = 1.25 + 5 2^-24 + 1.25 2^-54 lies just above the float32 midpoint
     * between 1.25 + 2^-22 (even) and 1.25 + 3 2^-23, so it rounds up, where a sum without the product's low part
     * ties to the even one; the same negated. And x x - y, x = 1 + 17505053 2^-27 and y = 171510892 2^-27 the value of
     * 28 bits nearest x x, times 1.25: 1.25 (x x - y) rounds to 0x1.b4699cp-30, where the product's rounded part times
     * the scales, rounded to a double, or the sum without the product's low part, gives 0x1.b4699ap-30.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void underScalesOfSeveralBitsEachScaledProductKeepsItsLowPart(boolean inTheTiles) {
        double above = 1 + 0x1p-27, scales = 1.25;
        assertEquals(1.25f + 3 * 0x1p-23f, blockSum(UNDER_UE4M3, new double[] {above, 15 * 0x1p-26}, new double[] {above, 1}, scales, inTheTiles));
        assertEquals(-1.25f - 3 * 0x1p-23f, blockSum(UNDER_UE4M3, new double[] {-above, -15 * 0x1p-26}, new double[] {above, 1}, scales, inTheTiles));
        double x = 1 + 17505053 * 0x1p-27, nearest = 171510892 * 0x1p-27;
        assertEquals(0x1.b4699cp-30f, blockSum(UNDER_UE4M3, new double[] {x, -nearest}, new double[] {x, 1}, scales, inTheTiles));
    }

    /**
     * The block's exact sum of products of the elements a and b (posit32 values, as doubles) of format {@code name} times
     * {@code scales}, rounded once to float32, as compiled: in limbs, or as the tiles sum a block whose products lie close together, in two
     * parts extracted below the largest product's magnitude (these blocks' products lie within 2^25 of each other).
     */
    private static float blockSum(String name, double[] a, double[] b, double scales, boolean inTheTiles) {
        BlockFormat format = BlockDotsTest.format(name);
        ExactBlockSum sum = ExactBlockSum.of(format).orElseThrow();
        assertTrue(sum.productsInTwoParts());
        long[] shape = {a.length};
        Buffer aIn = new Buffer("a", ScalarType.F64, shape), bIn = new Buffer("b", ScalarType.F64, shape), out = new Buffer("sum", ScalarType.F32, new long[] {1});
        KernelBuilder kb = new KernelBuilder("block", "BlockSum", List.of(aIn, bIn), List.of(out));
        Expr scale = constant(ScalarType.F64, scales);
        if (inTheTiles) {
            Expr largest = constant(ScalarType.F64, largest(a) * largest(b)), smallest = constant(ScalarType.F64, smallest(a) * smallest(b));
            ExactBlockSum extraction = sum.extractingBelow(kb, largest);
            List<Expr> as = new ArrayList<>(), bs = new ArrayList<>();
            for (int j = 0; j < a.length; j++) {
                as.add(kb.load(aIn, constant(ScalarType.I64, j)));
                bs.add(kb.load(bIn, constant(ScalarType.I64, j)));
            }
            List<Expr> parts = extraction.accumulate(kb, List.of(constant(ScalarType.F64, 0), constant(ScalarType.F64, 0)), as, bs);
            kb.store(out, constant(ScalarType.I64, 0), select(sum.fitsExtracted(largest, smallest), extraction.rounded(kb, parts, scale), constant(ScalarType.F32, Float.NaN)));
        } else {
            kb.store(out, constant(ScalarType.I64, 0), sum.emitRounded(kb, constant(ScalarType.I64, a.length), j -> kb.load(aIn, j), j -> kb.load(bIn, j), scale));
        }
        Program program = new Program("block", List.of(kb.build()), List.of(aIn, bIn),
            List.of(new TensorSpec("a", ElementType.DOUBLE, shape), new TensorSpec("b", ElementType.DOUBLE, shape)), List.of(out),
            List.of(new TensorSpec("sum", ElementType.FLOAT32, new long[] {1})), Map.of(), List.of());
        try (CompiledModule module = Compiler.compile(program, CompileOptions.host()); HostModel model = Compiler.jit(module)) {
            return model.run(List.of(doubles(a), doubles(b))).getFirst().toFloatArray()[0];
        }
    }

    private static double largest(double[] values) { return Arrays.stream(values).map(Math::abs).max().orElseThrow(); }

    private static double smallest(double[] values) { return Arrays.stream(values).map(Math::abs).filter(v -> v > 0).min().orElseThrow(); }

    private static Tensor doubles(double[] values) {
        Tensor t = Tensor.zeros(ElementType.DOUBLE, new long[] {values.length});
        for (int i = 0; i < values.length; i++) t.setDouble(i, values[i]);
        return t;
    }
}
