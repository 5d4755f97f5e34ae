package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.reference.BlockReference;
import dev.byodt.compiler.dtype.reference.Rational;
import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static dev.byodt.compiler.block.BlockDotsTest.K;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Block datatypes whose elements are wide: IEEE-style floats, bfloat16, float16 and float32, whose block sums span
 * more bits than two doubles hold (527, 85 and 561 for blocks of 32), and 32-bit fixed point, whose products (62 bits)
 * no double holds: the run-time quantizer against {@link BlockReference} (over every bfloat16, float16 and float32
 * value and every fxp32_16 magnitude, listed one by one), and dot products bit for bit against exact block sums of the
 * reference's elements, the blocks summed in one double where their products lie close enough together, in two
 * (split, or each product's high part extracted) where they lie closer than a bound, and in limbs where not, and
 * fixed point's as 64-bit integer products (BlockDotsTest's cases, in these formats, and sums that only exact sums give).
 */
class WideBlockElementsTest {
    /**
     * A few rules on each element under E8M0, and float16 under UE4M3 onto its grid, with and without a tensor scale;
     * each element under a tensor scale, whose quotients no double holds exactly (float32's divided by a scale of 4 bits
     * times a tensor scale of 24; fxp32's even and midmax thresholds of 32 bits times a tensor scale); with -Pexhaustive both elements under every rule and under UE4M3 by floor, and in more rounding modes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"block[bfloat16,32,e8m0,floor]", "block[float16,16,e8m0,floor]", "block[bfloat16,32,e8m0,ceil]", "block[float16,32,e8m0,even]",
        "block[float16,16,ue4m3,nearest]", "block[float16,16,ue4m3,rceil,tensor]", "block[float32,32,e8m0,floor]", "block[float32,32,e8m0,nearest]",
        "block[float32,16,ue4m3,rceil]", "block[float32,32,e8m0,midmax]", "block[fxp32_16,32,e8m0,floor]", "block[fxp32_16,32,e8m0,even]",
        "block[fxp32_16,16,ue4m3,nearest]", "block[fxp32_16,32,ue4m3,ceil]", "block[bfloat16,16,ue4m3,nearest,tensor]",
        "block[float32,16,ue4m3,nearest,tensor]", "block[float32,32,e8m0,floor,tensor]", "block[fxp32_16,16,ue4m3,nearest,tensor]",
        "block[fxp32_16,32,ue4m3,even,tensor]", "block[fxp32_16,32,e8m0,midmax,tensor]"})
    void activationsQuantizeAsTheExactReference(String name) {
        new BlockDotsTest().activationsQuantizeAsTheExactReference(name);
    }

    @ParameterizedTest
    @CsvSource({"'block[bfloat16,32,e8m0,floor]', up", "'block[float16,16,e8m0,floor]', odd", "'block[float16,16,ue4m3,nearest]', toward-zero",
        "'block[float32,16,ue4m3,nearest]', odd", "'block[fxp32_16,32,e8m0,floor]', down", "'block[fxp32_16,16,ue4m3,rceil]', nearest-away",
        "'block[float32,16,ue4m3,rceil,tensor]', up", "'block[fxp32_16,16,ue4m3,nearest,tensor]', odd", "'block[bfloat16,32,e8m0,ceil,tensor]', down"})
    void activationsQuantizeInTheOtherRoundingModesAsTheExactReference(String name, String mode) {
        new BlockDotsTest().activationsQuantizeInTheOtherRoundingModesAsTheExactReference(name, mode);
    }

    /**
     * Values whose quotient by their block's divisor X t (a UE4M3 scale times a tensor scale), rounded once in double,
     * lands on a point the rounding reads while the exact quotient lies beside it (found by search): the midpoints
     * between fxp32_16's elements, 2^-17 apart, to nearest, and the 2^-32 fractions that 16 random bits read
     * stochastically. A quantizer that divides in double rounds about half of them the wrong way.
     */
    @Test
    void quotientsADoubleRoundsOntoAPointRoundAsTheExactOnes() {
        String name = "block[fxp32_16,16,ue4m3,nearest,tensor]";
        BlockDotsTest.checkQuantization(name, RoundingMode.NEAREST_EVEN, quotientsOnPoints(name, 17));
        BlockFormat stochastic = BlockStochasticRoundingTest.format(name, 16, BlockStochasticRoundingTest.SEED);
        BlockStochasticRoundingTest.checkActivations(name, stochastic, quotientsOnPoints(name, 32));
    }

    /**
     * Rows of blocks led by 3 2^13 (so every block has the same scale X, and the tensor the same t), the other values
     * the float32s v from 2^12 up, in order, whose double quotient v / (X t) is a multiple of 2^-pointBits while the
     * exact one is not (about one in 2^21 to nearest, one in 2^6 stochastically), with alternating signs, up to 20 rows
     * of them (zeros where the float32s below the lead run out).
     */
    private static float[][] quotientsOnPoints(String name, int pointBits) {
        BlockFormat format = BlockDotsTest.format(name);
        int size = format.blockSize();
        float lead = 3 * 0x1p13f;
        float[] block = new float[size];
        block[0] = lead;
        double t = format.tensorScale(block), divisor = format.quantize(block, 0, 1, t).scale() * t;
        List<Float> found = new ArrayList<>();
        for (int bits = Float.floatToIntBits(0x1p12f); bits < Float.floatToIntBits(lead) && found.size() < 20 * K; bits++) {
            float v = Float.intBitsToFloat(bits);
            double q = v / divisor, points = Math.scalb(q, pointBits);
            if (points == Math.rint(points) && new BigDecimal(v).compareTo(new BigDecimal(q).multiply(new BigDecimal(divisor))) != 0) {
                found.add(found.size() % 2 == 0 ? v : -v);
            }
        }
        float[][] rows = new float[Math.ceilDiv(found.size(), K - Math.ceilDiv(K, size))][K];
        int next = 0;
        for (float[] row : rows) {
            for (int i = 0; i < K; i++) row[i] = i % size == 0 ? lead : next < found.size() ? found.get(next++) : 0;
        }
        return rows;
    }

    @Tag("exhaustive")
    @Test
    void bothElementsUnderEveryRuleAndMoreModes() {
        BlockDotsTest dots = new BlockDotsTest();
        for (String element : List.of("bfloat16", "float16")) {
            for (String rule : List.of("floor", "ceil", "even", "rceil", "midmax", "nearest")) {
                dots.activationsQuantizeAsTheExactReference("block[" + element + ",32,e8m0," + rule + "]");
            }
            dots.activationsQuantizeAsTheExactReference("block[" + element + ",16,ue4m3,floor]");
        }
        dots.activationsQuantizeInTheOtherRoundingModesAsTheExactReference("block[bfloat16,32,e8m0,floor]", "nearest-away");
        dots.activationsQuantizeInTheOtherRoundingModesAsTheExactReference("block[float16,16,e8m0,rceil]", "down");
    }

    /**
     * MatMul by constant weights in tiles, Gemm, Conv, two activations (BlockDotsTest's cases): bfloat16 under E8M0,
     * float16 under UE4M3 scales onto its grid with a tensor scale, float32 and fxp32_16 under NVFP4's scales; with
     * -Pexhaustive float16 under E8M0 and under UE4M3 without a tensor scale, bfloat16 by midmax and under NVFP4's scales.
     */
    @ParameterizedTest
    @ValueSource(strings = {"block[bfloat16,32,e8m0,floor]", "block[float16,16,ue4m3,rceil,tensor]", "block[float32,32,e8m0,floor]",
        "block[fxp32_16,32,ue4m3,nearest]", "block[float32,16,ue4m3,nearest,tensor]", "block[fxp32_16,16,ue4m3,nearest,tensor]"})
    void dotProductsSumExactBlocks(String name) {
        checkDotProducts(name);
    }

    @Tag("exhaustive")
    @Test
    void dotProductsInTheOtherWideFormats() {
        for (String name : List.of("block[float16,16,e8m0,floor]", "block[float16,16,ue4m3,nearest]", "block[bfloat16,32,e8m0,midmax]",
            "block[float32,16,ue4m3,nearest]", "block[fxp32_16,32,e8m0,floor]", "block[fxp32_16,16,ue4m3,floor]",
            "block[bfloat16,16,ue4m3,nearest,tensor]")) {
            checkDotProducts(name);
        }
    }

    private static void checkDotProducts(String name) {
        BlockDotsTest dots = new BlockDotsTest();
        dots.matMulSumsExactBlocksInFloat32(name);
        dots.gemmWithTransposedWeightsAndBias(name);
        dots.convBlocksRunAlongInputChannels(name);
        BlockDotsTest.checkMatMulOfTwoActivations(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"block[bfloat16,32,e8m0,floor]", "block[float16,16,e8m0,floor]", "block[float32,32,e8m0,floor]", "block[fxp32_16,32,e8m0,floor]"})
    void accumulateExactRoundsTheWholeSumOnce(String name) {
        new BlockDotsTest().accumulateExactRoundsTheWholeSumOnce(name);
    }

    /**
     * MatMul tiles (two runs of 8 rows by 8 columns) over blocks whose elements spread over 2^-60 .. 1 (wide, whose
     * products no two doubles sum exactly), within 2^41 (medium: two doubles split at a threshold, for bfloat16
     * under E8M0; extracted, for float16 under UE4M3) or within 2^8 (narrow: one double; for float32, whose products
     * one double never sums, extracted): run 0's rows wide, narrow, medium in blocks 0, 1, 2, run 1's medium, wide,
     * narrow, the columns narrow throughout, so that each run sums its blocks in each way. Posit elements whose block
     * sums outgrow a double are checked the same way (posit8 es 2 under E8M0: one double within 2^39, extracted within
     * 2^86, limbs beyond, where its elements spread from minpos to maxpos; posit8 es 1 under UE4M3); posit32's products
     * of two parts extracted within 2^37 and in limbs beyond, with and without a tensor scale (which gives its elements
     * 28 bits, so the products' low parts are not 0), and under UE4M3 scales (extracted within 2^23 for blocks of 16).
     */
    @ParameterizedTest
    @ValueSource(strings = {"block[bfloat16,32,e8m0,floor]", "block[float16,16,ue4m3,nearest]", "block[float32,32,e8m0,floor]", "block[float32,16,ue4m3,nearest]",
        "block[custom[posit]8,32,e8m0,floor]", "block[custom[posit_es1]8,16,ue4m3,nearest]", "block[custom[posit]32,32,e8m0,floor]",
        "block[custom[posit]32,32,e8m0,rceil,tensor]", "block[custom[posit]32,16,ue4m3,nearest,tensor]"})
    void tilesSumInOneDoubleWhereTheirBlocksFitAndInLimbsElsewhere(String name) {
        int m = 16, n = 8;
        SplittableRandom random = new SplittableRandom(name.hashCode());
        float[] a = new float[m * K], b = new float[K * n];
        int[][] rowSpreads = {{WIDE, NARROW, MEDIUM}, {MEDIUM, WIDE, NARROW}};
        for (int row = 0; row < m; row++) {
            for (int k = 0; k < K; k++) a[row * K + k] = spread(random, rowSpreads[row / 8][k / 32]);
        }
        for (int i = 0; i < b.length; i++) b[i] = spread(random, NARROW);
        Graph graph = BlockDotsTest.node("MatMul", new long[] {m, K}, new long[] {m, n}, Map.of(), Tensor.ofFloats(new long[] {K, n}, b), null);
        float[] expected = BlockDotsTest.expectedMatMul(BlockDotsTest.reference(name), BlockDotsTest.named(name).blockSize(), a, b, n,
            BlockDotsTest.tensorScale(name, a), BlockDotsTest.tensorScale(name, b));
        BlockDotsTest.assertBits(name, expected, BlockDotsTest.run(graph, name, new long[] {m, K}, a));
    }

    /** How far a block's values spread ({@link #spread}). */
    private static final int NARROW = 0, MEDIUM = 1, WIDE = 2;

    /** A random value of either sign: below 1 and down to 2^-60 or less (wide), from 2^-40 to 2 (medium), from 1 to 2^8 (narrow). */
    private static float spread(SplittableRandom random, int spread) {
        if (spread == WIDE) return (float) Math.scalb(random.nextDouble(-1, 1), -random.nextInt(0, 61));
        double magnitude = spread == MEDIUM ? Math.scalb(1 + random.nextDouble(), -random.nextInt(0, 41)) : Math.scalb(1 + random.nextDouble(), random.nextInt(0, 8));
        return (float) (random.nextBoolean() ? magnitude : -magnitude);
    }

    /**
     * Sums whose float32 only exact sums give: a block of 1 1 + 1 2^-24 + t t (each element a power of two, its
     * products within the element's range) is above the float32 midpoint 1 + 2^-24 by t t, which a sum that drops
     * it ties to 1, and so rounds to 1 + 2^-23; its negation; the midpoint alone (to even: 1); and 1 + 3 2^-24 - t t,
     * below the midpoint between 1 + 2^-23 and 1 + 2^-22 (to 1 + 2^-23). t = 2^-60 for bfloat16 and 2^-30 for float16
     * put the products too far apart for two doubles (limbs); t = 2^-30 for bfloat16 (a product no double holds
     * beside 1) and 2^-20 for float16 within two split at a threshold; for float32 2^-60 (limbs), and 2^-20 under E8M0
     * and 2^-14 under UE4M3 (each product's high part extracted); fxp32_16's 2^-29, 2 in its last place (the products'
     * integers 2^60, 2^36 and 4: beyond a double, in 64-bit integers). In MatMul's tiles, in Gemm with an activation
     * B stored [N, K] (output by output) and with --accumulate exact.
     */
    @ParameterizedTest
    @CsvSource({"'block[bfloat16,32,e8m0,floor]', -60", "'block[float16,32,e8m0,floor]', -30", "'block[float16,16,ue4m3,nearest]', -30",
        "'block[bfloat16,32,e8m0,floor]', -30", "'block[float16,32,e8m0,floor]', -20", "'block[float32,32,e8m0,floor]', -60",
        "'block[float32,32,e8m0,floor]', -20", "'block[float32,16,ue4m3,nearest]', -14", "'block[fxp32_16,32,e8m0,floor]', -29"})
    void wideBlockSumsRoundOnceFromTheExactSum(String name, int tinyExponent) {
        float tiny = Math.scalb(1f, tinyExponent);
        float[][] rows = {{1, 1, tiny}, {-1, -1, -tiny}, {1, 1, 0}, {1, 3, -tiny}};
        float[] column = {1, 0x1p-24f, tiny};
        int m = rows.length, n = 2;
        float[] a = new float[m * K], b = new float[K * n], bRows = new float[n * K];
        for (int r = 0; r < m; r++) System.arraycopy(rows[r], 0, a, r * K, rows[r].length);
        for (int k = 0; k < column.length; k++) {
            b[k * n] = column[k];
            bRows[k] = column[k];
        }
        float[] expected = BlockDotsTest.expectedMatMul(BlockDotsTest.reference(name), BlockDotsTest.named(name).blockSize(), a, b, n, Rational.of(1), Rational.of(1));
        assertEquals(1 + 0x1p-23f, expected[0]);
        assertEquals(-1 - 0x1p-23f, expected[n]);
        assertEquals(1f, expected[2 * n]);
        assertEquals(1 + 0x1p-23f, expected[3 * n]);
        Graph matMul = BlockDotsTest.node("MatMul", new long[] {m, K}, new long[] {m, n}, Map.of(), Tensor.ofFloats(new long[] {K, n}, b), null);
        BlockDotsTest.assertBits(name + " MatMul", expected, BlockDotsTest.run(matMul, name, new long[] {m, K}, a));
        Graph gemm = BlockDotsTest.activations("Gemm", new long[] {m, K}, new long[] {n, K}, new long[] {m, n}, Map.of("transB", new Attribute.IntAttr(1)), null);
        BlockDotsTest.assertBits(name + " Gemm", expected,
            BlockDotsTest.run(gemm, name, List.of(Tensor.ofFloats(new long[] {m, K}, a), Tensor.ofFloats(new long[] {n, K}, bRows))));
        float[] exact = new float[m * n];
        for (int r = 0; r < m; r++) {
            float[] w = new float[K];
            for (int col = 0; col < n; col++) {
                for (int k = 0; k < K; k++) w[k] = b[k * n + col];
                exact[r * n + col] = BlockDotsTest.exactBlockSum(BlockDotsTest.reference(name), BlockDotsTest.named(name).blockSize(),
                    Arrays.copyOfRange(a, r * K, r * K + K), w, Rational.of(1), Rational.of(1));
            }
        }
        assertEquals(Arrays.toString(expected), Arrays.toString(exact), "one block: the block's sum is the row's");
        BlockDotsTest.assertBits(name + " accumulate exact", expected, BlockDotsTest.runAccumulatingExactly(matMul, name, new long[] {m, K}, a));
    }
}
