package dev.byodt.compiler.block;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.CallItems;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeName;
import dev.byodt.compiler.dtype.PositGrid;
import dev.byodt.compiler.dtype.QuantizedBlock;
import dev.byodt.compiler.dtype.ValueGrid;
import dev.byodt.compiler.dtype.StochasticRounding;
import dev.byodt.compiler.dtype.reference.BlockReference;
import dev.byodt.compiler.dtype.reference.Rational;
import dev.byodt.compiler.dtype.reference.StochasticBlockReference;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

import static dev.byodt.compiler.block.BlockDotsTest.K;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Block elements rounded stochastically (--rounding stochastic --sr-bits N --seed S): the run-time quantizer of
 * activations and the compile-time one of weights, bit for bit against {@link StochasticBlockReference} given the
 * same random bits (those {@link StochasticRounding#randomBits} gives each element's counter: the key of the node
 * and the operand plus the element's index in the tensor); unbiased; and a MatMul the same on 1 and 2 threads,
 * and other with another seed. Posit elements too, which step between neighbouring posits by their distance.
 */
class BlockStochasticRoundingTest {
    static final long SEED = 7;

    static BlockFormat format(String name, int bits, long seed) {
        BlockDatatypeName n = DatatypeName.parseBlock(name).orElseThrow();
        return BlockFormat.resolve(n, DatatypeChoice.builtInRegistry()).withElementRounding("stochastic").withRandomBits(bits, seed);
    }

    private static StochasticBlockReference reference(String name) {
        BlockDatatypeName n = DatatypeName.parseBlock(name).orElseThrow();
        return StochasticBlockReference.of(n.element().toString(), n.scale().toString(), n.rule().optionName());
    }

    /**
     * BlockDotsTest's edge and seeded rows, the seeded ones alone for a format with a tensor scale (whose edge rows'
     * extremes set a tensor scale under which every other element is 0).
     */
    private static float[][] rows(BlockFormat format) {
        float[][] rows = BlockDotsTest.rows(format.name().toString());
        return format.name().tensorScale() ? Arrays.copyOfRange(rows, BlockDotsTest.EDGE_ROWS, rows.length) : rows;
    }

    /**
     * The rows quantized when a kernel runs: its kernel is 'quantize', its source 'x'. Posit elements (with every
     * (N+1)-bit posit in BlockDotsTest's rows: neighbours near minpos and maxpos, where the regime cuts exponent
     * bits) under E8M0, and under UE4M3 scales and a tensor scale; posit32 too, rounded arithmetically. Wide elements: bfloat16 and float16, and fxp32_16
     * (kept as integers); under a tensor scale, whose quotients are rounded to odd (fxp32_16 and fxp16_12 with 16 random
     * bits, float32, bfloat16); float32 without one below.
     */
    @ParameterizedTest
    @CsvSource({"mxfp8e4m3, 16", "mxint8, 3", "nvfp4, 16", "mxfp6e2m3, 1", "'block[custom[fp8e4m3]8,32,ue4m3,floor,tensor]', 16",
        "'block[custom[posit]8,32,e8m0,floor]', 16", "'block[custom[posit_es0]8,32,e8m0,rceil]', 3", "'block[custom[posit_es3]6,16,e8m0,midmax]', 5",
        "'block[custom[posit_es1]16,32,e8m0,floor]', 16", "'block[custom[posit]8,16,ue4m3,floor,tensor]', 16",
        "'block[custom[posit_es1]8,16,ue4m3,nearest,tensor]', 16", "'block[custom[posit_es3]8,32,ue4m3,rceil]', 5",
        "'block[bfloat16,32,e8m0,floor]', 16", "'block[float16,16,ue4m3,nearest]', 5", "'block[float16,32,e8m0,ceil]', 3",
        "'block[fxp32_16,32,e8m0,floor]', 16", "'block[fxp32_16,16,ue4m3,nearest]', 16", "'block[fxp32_16,16,ue4m3,nearest,tensor]', 16",
        "'block[fxp16_12,32,ue4m3,floor,tensor]', 16", "'block[float32,16,ue4m3,nearest,tensor]', 16", "'block[bfloat16,16,ue4m3,rceil,tensor]', 7",
        "'block[custom[posit]32,32,e8m0,floor]', 16", "'block[custom[posit]32,16,ue4m3,nearest,tensor]', 16", "'block[custom[posit_es3]32,32,e8m0,midmax]', 5"})
    void activationsRoundAsTheReferenceGivenTheSameBits(String name, int bits) {
        BlockFormat format = format(name, bits, SEED);
        checkActivations(name, format, rows(format));
    }

    /**
     * float32 elements round only under a scale that is not a power of two, which UE4M3's nearest and rceil rules give
     * only to blocks whose largest magnitude is at least 2^119 (below, the smallest, 2^-9, a power of two): seeded blocks
     * led by such a magnitude, their other values up to 2^40 below it, at run time and at compile time.
     */
    @ParameterizedTest
    @CsvSource({"'block[float32,16,ue4m3,nearest]', 16", "'block[float32,32,ue4m3,rceil]', 4"})
    void float32ElementsRoundAsTheReferenceGivenTheSameBits(String name, int bits) {
        BlockFormat format = format(name, bits, SEED);
        SplittableRandom random = new SplittableRandom(name.hashCode());
        float[][] rows = new float[30][K];
        for (float[] row : rows) {
            for (int i = 0; i < K; i++) {
                double magnitude = i % format.blockSize() == 0 ? Math.scalb(random.nextDouble(1, 1.99), 127) : Math.scalb(random.nextDouble(1, 2), 127 - random.nextInt(1, 41));
                row[i] = (float) (random.nextBoolean() ? magnitude : -magnitude);
            }
        }
        checkActivations(name, format, rows);
        checkWeights(name, format, rows);
    }

    static void checkActivations(String name, BlockFormat format, float[][] rows) {
        float[] flat = flat(rows);
        List<double[]> quantized = BlockDotsTest.quantizeAtRunTime(format, rows.length, flat);
        check(name, format, flat, rows.length, quantized.get(0), quantized.get(1), format.counterKey("quantize", "x"));
    }

    /** Posits of 6, 8, 12 and 16 bits with every es under E8M0 by floor, with 16 and 5 random bits. */
    @Tag("exhaustive")
    @Test
    void positElementsOfEveryWidthAndEsRoundAsTheReference() {
        for (String width : List.of("6", "8", "12", "16")) {
            for (String posit : List.of("posit_es0", "posit_es1", "posit", "posit_es3")) {
                for (int bits : new int[] {16, 5}) activationsRoundAsTheReferenceGivenTheSameBits("block[custom[" + posit + "]" + width + ",32,e8m0,floor]", bits);
            }
        }
    }

    /** The same rows as one weight tensor quantized at compile time (BlockFormat.quantize), counters from the key of node 'dot', operand 'W'. */
    @ParameterizedTest
    @CsvSource({"mxfp8e4m3, 16", "mxint8, 3", "nvfp4, 5", "'block[custom[posit]8,32,e8m0,floor]', 16", "'block[custom[posit_es1]8,16,ue4m3,nearest,tensor]', 5",
        "'block[bfloat16,32,e8m0,floor]', 16", "'block[fxp32_16,32,e8m0,floor]', 16", "'block[custom[posit]32,16,e8m0,rceil,tensor]', 16"})
    void weightsRoundAsTheReferenceGivenTheSameBits(String name, int bits) {
        BlockFormat format = format(name, bits, SEED);
        checkWeights(name, format, rows(format));
    }

    private static void checkWeights(String name, BlockFormat format, float[][] rows) {
        float[] flat = flat(rows);
        long key = format.counterKey("dot", "W");
        int size = format.blockSize(), blocks = (K + size - 1) / size;
        double[] elements = new double[flat.length], scales = new double[rows.length * blocks];
        double tensorScale = format.tensorScale(flat);
        for (int r = 0; r < rows.length; r++) {
            for (int b = 0; b < blocks; b++) {
                int first = r * K + b * size, count = Math.min(size, K - b * size);
                QuantizedBlock q = format.quantize(flat, first, count, tensorScale, j -> key + first + j);
                scales[r * blocks + b] = q.scale();
                for (int j = 0; j < count; j++) elements[first + j] = q.element(j);
            }
        }
        check(name, format, flat, rows.length, elements, scales, key);
    }

    private static void check(String name, BlockFormat format, float[] flat, int rowCount, double[] elements, double[] scales, long key) {
        StochasticBlockReference reference = reference(name);
        // Elements kept as integers (fixed point of more than 24 bits) have no -0: a zero's sign reaches no sum.
        boolean signedZeros = ElementStorage.of(format).orElseThrow().type() == ScalarType.F32;
        Rational t = format.name().tensorScale() ? reference.towardZero().tensorScale(flat) : Rational.of(1);
        int size = format.blockSize(), blocks = (K + size - 1) / size;
        int steppedUp = 0;
        for (int r = 0; r < rowCount; r++) {
            for (int b = 0; b < blocks; b++) {
                int first = r * K + b * size, count = Math.min(size, K - b * size);
                int[] random = new int[count];
                for (int j = 0; j < count; j++) random[j] = StochasticRounding.randomBits(key + first + j, format.srBits());
                BlockReference.Block expected = reference.quantize(Arrays.copyOfRange(flat, first, first + count), t, random, format.srBits());
                BlockReference.Block below = reference.towardZero().quantize(Arrays.copyOfRange(flat, first, first + count), t);
                if (expected.scale() == null) {
                    assertTrue(Double.isNaN(scales[r * blocks + b]), name + " row " + r + " block " + b + ": a NaN block's scale");
                    continue;
                }
                assertEquals(toFloat(expected.scale()), scales[r * blocks + b], name + " row " + r + " block " + b + ": scale");
                for (int j = 0; j < count; j++) {
                    double wanted = BlockDotsTest.exactDouble(expected.elements()[j]);
                    if (expected.negative()[j]) wanted = -wanted;
                    if (expected.elements()[j].compareTo(below.elements()[j]) != 0) steppedUp++;
                    if (signedZeros ? Double.doubleToRawLongBits(elements[first + j]) != Double.doubleToRawLongBits(wanted) : elements[first + j] != wanted) {
                        fail(name + " row " + r + " value " + (b * size + j) + " (" + flat[first + j] + "): element " + elements[first + j] + ", expected " + wanted);
                    }
                }
            }
        }
        assertTrue(steppedUp > 50, name + ": only " + steppedUp + " elements went up a step, too few to tell the random bits apart");
    }

    /**
     * 4,096 rows of the same block (a power of two in the largest element's binade first, so that every row has the
     * scale 1 under the floor rule) at run time, each element with counters of its own: each value's mean element is its
     * quotient to within five standard deviations plus the 2^-bits truncation bias, which rounding toward zero exceeds
     * for each. Wide elements too: bfloat16, float16 and fxp32_16 (as integers, 2^-16 apart).
     */
    @ParameterizedTest
    @CsvSource({"mxfp8e4m3, 16", "mxint8, 4", "mxfp4, 5", "'block[bfloat16,32,e8m0,floor]', 16", "'block[float16,16,e8m0,floor]', 6",
        "'block[fxp32_16,32,e8m0,floor]', 16"})
    void theElementsAreUnbiased(String name, int bits) {
        BlockFormat format = format(name, bits, SEED);
        float[] row = new float[K];
        double[] low = new double[K], high = new double[K];
        float[] fractions = {0.25f, 0.5f, 0.75f, 0.3f, 0.9f};
        // 0.5 and 1 are grid points of every element here (whose scale is 1), and the values are fractions of a step above 0.5.
        ValueGrid grid = (ValueGrid) format.element();
        double step = Math.scalb(1.0, Math.max(-1, grid.minExponent()) - grid.fractionBits());
        for (int i = 0; i < K; i++) {
            if (i % format.blockSize() == 0) {
                row[i] = Math.scalb(1f, grid.maxExponent());
                continue;
            }
            row[i] = (float) ((i % 2 == 0 ? 1 : -1) * (0.5 + fractions[i % fractions.length] * step));
            low[i] = Math.floor(Math.abs(row[i]) / step) * step;
            high[i] = low[i] + step;
        }
        checkUnbiased(name, format, bits, row, 1, low, high);
    }

    /**
     * float32 elements, which round only under a scale that is not a power of two: blocks led by 0.875 times the
     * largest float32, whose scale by the nearest rule onto UE4M3 is 0.875, and values 0.4375 + m 2^-25 (float32s),
     * whose quotients by 0.875 are 0.5 + (4m / 7) 2^-24: m mod 7 sevenths of the float32 spacing apart, never on a float32.
     */
    @Test
    void float32ElementsAreUnbiasedUnderAScaleThatIsNotAPowerOfTwo() {
        String name = "block[float32,16,ue4m3,nearest]";
        int bits = 12;
        BlockFormat format = format(name, bits, SEED);
        double scale = 0.875, step = 0x1p-24;
        float[] row = new float[K];
        double[] low = new double[K], high = new double[K];
        for (int i = 0; i < K; i++) {
            if (i % format.blockSize() == 0) {
                row[i] = (float) (Float.MAX_VALUE * scale);
                continue;
            }
            long m = 7L * i + 1 + i % 6;
            row[i] = (float) ((i % 2 == 0 ? 1 : -1) * (0.4375 + m * 0x1p-25));
            low[i] = 0.5 + Math.floorDiv(4 * m, 7) * step;
            high[i] = low[i] + step;
        }
        checkUnbiased(name, format, bits, row, scale, low, high);
    }

    /**
     * The same for posit elements, each block led by maxpos: values at fractions of the distance between neighbouring
     * posits, near minpos, near 1 and near maxpos, where the regime cuts exponent bits (posit8 es 2: between 2^20 and
     * 2^24, where the bit string's cut bits would read 2^22 as halfway, not a fifth of the way).
     */
    @ParameterizedTest
    @CsvSource({"'block[custom[posit]8,32,e8m0,floor]', 4", "'block[custom[posit_es0]8,32,e8m0,floor]', 16", "'block[custom[posit_es3]8,32,e8m0,floor]', 6"})
    void positElementsAreUnbiasedBetweenTheirNeighbours(String name, int bits) {
        BlockFormat format = format(name, bits, SEED);
        PositGrid posit = (PositGrid) format.element();
        long top = posit.largestPattern(), one = (top + 1) / 2;
        long[] below = {1, 2, one - 1, one, one + 3, top - 2, top - 1};
        double[] fractions = {0.25, 0.5, 0.75, 0.2, 0.9};
        float[] row = new float[K];
        double[] low = new double[K], high = new double[K];
        for (int i = 0, next = 0; i < K; i++) {
            if (i % format.blockSize() == 0) {
                row[i] = (float) posit.largest();
                continue;
            }
            int pair = next / fractions.length, fraction = next % fractions.length;
            next = (next + 1) % (below.length * fractions.length);
            low[i] = posit.value(below[pair]);
            high[i] = posit.value(below[pair] + 1);
            row[i] = (float) ((i % 2 == 0 ? 1 : -1) * (low[i] + fractions[fraction] * (high[i] - low[i])));
        }
        checkUnbiased(name, format, bits, row, 1, low, high);
    }

    /**
     * Quantizes 4,096 copies of {@code row}, whose blocks' first values give them the scale {@code scale}, at run
     * time: each other value's elements are the neighbours low and high of its quotient by the scale, and their mean
     * is that quotient to within five standard deviations (at most half the distance each) plus the 2^-bits
     * truncation bias of the distance, a bound rounding toward zero exceeds.
     */
    private static void checkUnbiased(String name, BlockFormat format, int bits, float[] row, double scale, double[] low, double[] high) {
        int rows = 4096;
        float[] flat = new float[rows * K];
        for (int r = 0; r < rows; r++) System.arraycopy(row, 0, flat, r * K, K);
        List<double[]> quantized = BlockDotsTest.quantizeAtRunTime(format, rows, flat);
        int blocks = (K + format.blockSize() - 1) / format.blockSize();
        for (int i = 0; i < K; i++) {
            if (i % format.blockSize() == 0) continue;
            double q = Math.abs((double) row[i]) / scale, spacing = high[i] - low[i], sum = 0;
            for (int r = 0; r < rows; r++) {
                assertEquals(scale, quantized.get(1)[r * blocks + i / format.blockSize()], "every row's scale");
                double element = Math.abs(quantized.get(0)[r * K + i]);
                assertTrue(element == low[i] || element == high[i], name + " value " + row[i] + ": element " + element + " is a neighbour");
                sum += element;
            }
            double mean = sum / rows, bound = 5 * 0.5 * spacing / Math.sqrt(rows) + spacing * Math.scalb(1.0, -bits);
            assertTrue(Math.abs(mean - q) <= bound, name + " value " + row[i] + ": mean element " + mean + ", value " + q + ", bound " + bound);
            assertFalse(Math.abs(low[i] - q) <= bound, "the bound tells rounding toward zero apart at " + row[i]);
        }
    }

    /**
     * A MatMul of an activation and weights: the same bits on 1 and 2 threads and on a second compilation, other bits
     * with another seed; posit elements summed in limbs (posit8 es 2), and under UE4M3 scales and a tensor scale.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mxfp8e4m3", "block[custom[posit]8,32,e8m0,floor]", "block[custom[posit_es1]8,16,ue4m3,nearest,tensor]"})
    void aMatMulIsTheSameOnOneAndTwoThreadsAndChangesWithTheSeed(String name) {
        int m = 8, n = 6;
        float[] a = BlockDotsTest.seeded(71, m * K, 4), b = BlockDotsTest.seeded(72, K * n, 1);
        Graph graph = BlockDotsTest.node("MatMul", new long[] {m, K}, new long[] {m, n}, Map.of(), Tensor.ofFloats(new long[] {K, n}, b), null);
        float[] one = run(name, graph, a, 1, SEED), two = run(name, graph, a, 2, SEED), again = run(name, graph, a, 1, SEED),
            other = run(name, graph, a, 1, SEED + 1);
        BlockDotsTest.assertBits("2 threads", one, two);
        BlockDotsTest.assertBits("again", one, again);
        assertFalse(Arrays.equals(one, other), "another seed rounds other elements up");
        float[] nearest = runNearest(name, graph, a);
        assertFalse(Arrays.equals(one, nearest), "stochastic rounding is not nearest");
    }

    private static float[] run(String name, Graph graph, float[] a, int threads, long seed) {
        DatatypeChoice datatypes = DatatypeChoice.float32().withDatatype("bfloat16").withOptions(Map.of("rounding", "stochastic", StochasticRounding.BITS_OPTION, "16")).withSeed(seed);
        return compileAndRun(name, graph, a, CompileOptions.host().withDatatypes(datatypes).withThreads(threads)
            .withLeastSplitWork(0));
    }

    private static float[] runNearest(String name, Graph graph, float[] a) { return compileAndRun(name, graph, a, CompileOptions.host().withDatatype("bfloat16")); }

    private static float[] compileAndRun(String name, Graph graph, float[] a, CompileOptions options) {
        CompileOptions withBlock = options.withBlock(DatatypeName.parseBlock(name));
        try (CompiledModule module = Compiler.compile(graph, withBlock); HostModel model = Compiler.jit(module)) {
            return model.run(CallItems.withFirstItem(model.inputs(), List.of(Tensor.ofFloats(new long[] {a.length / K, K}, a)), 0)).getFirst().toFloatArray();
        }
    }

    private static float[] flat(float[][] rows) {
        float[] flat = new float[rows.length * K];
        for (int r = 0; r < rows.length; r++) System.arraycopy(rows[r], 0, flat, r * K, K);
        return flat;
    }

    /** A rational that is a float32 (an element or a scale), as that float32. */
    private static float toFloat(Rational q) {
        float f = new BigDecimal(q.num()).divide(new BigDecimal(q.den())).floatValue();
        assertEquals(0, q.compareTo(Rational.of(new BigDecimal(f))), q + " is a float32 exactly");
        return f;
    }
}
