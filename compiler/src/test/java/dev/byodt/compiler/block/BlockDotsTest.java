package dev.byodt.compiler.block;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.BlockChoice;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeName;
import dev.byodt.compiler.dtype.PositGrid;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.posit.PositReference;
import dev.byodt.compiler.dtype.reference.BlockReference;
import dev.byodt.compiler.dtype.reference.Rational;
import dev.byodt.compiler.dtype.reference.Rounding;
import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.ops.Operators;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Dot products in the MX block datatypes, compiled and run, bit for bit against {@link BlockReference} (exact
 * rationals over the element and scale values listed one by one) and an exact sum of each block's products:
 * the run-time quantization of activations on edge-case rows and seeded ones, then MatMul, Gemm and Conv nodes
 * (vector datatype float32, so that the bias adds are float32's) whose every output is the float32 sum, from +0
 * in block order, of each block's exact sum rounded once to float32.
 */
class BlockDotsTest {
    /** The number of edge rows {@link #rows} starts with. */
    static final int EDGE_ROWS = 11;

    /** A row length that leaves a partial last block of 6. */
    static final int K = 70;

    static BlockDatatypeName named(String name) { return DatatypeName.parseBlock(name).orElseThrow(); }

    static BlockFormat format(String name) { return BlockFormat.resolve(named(name), DatatypeChoice.builtInRegistry()); }

    static BlockReference reference(String name) { return reference(name, RoundingMode.NEAREST_EVEN); }

    private static BlockReference reference(String name, RoundingMode elementRounding) {
        BlockDatatypeName n = named(name);
        return BlockReference.of(n.element().toString(), n.scale().toString(), n.rule().optionName(), elementRounding);
    }

    private static CompileOptions options(String name) {
        return CompileOptions.host().withBlock(Optional.of(named(name)));
    }

    // ---- run-time quantization

    @ParameterizedTest
    @ValueSource(strings = {"mxfp8e4m3", "mxfp8e5m2", "mxfp6e3m2", "mxfp6e2m3", "mxfp4", "mxint8", "nvfp4", "block[custom[posit_es0]8,32,e8m0,floor]",
        "block[custom[posit_es1]8,32,e8m0,floor]", "block[custom[posit]8,32,e8m0,floor]", "block[custom[posit_es3]8,32,e8m0,floor]",
        "block[custom[posit_es0]6,16,e8m0,floor]", "block[custom[posit]12,32,e8m0,floor]", "block[custom[posit_es1]16,32,e8m0,floor]",
        "block[custom[posit]32,32,e8m0,floor]", "block[custom[posit_es0]32,32,e8m0,floor]", "block[custom[posit_es1]24,16,e8m0,floor]"})
    void activationsQuantizeAsTheExactReference(String name) {
        float[][] rows = rows(name);
        checkQuantization(name, RoundingMode.NEAREST_EVEN, rows);
        // Without the edge rows, whose extremes set NVFP4's tensor scale.
        checkQuantization(name, RoundingMode.NEAREST_EVEN, Arrays.copyOfRange(rows, EDGE_ROWS, rows.length));
    }

    /**
     * Every scale rule at run time, each rule on another element: MX elements under E8M0, and FP4 under a UE4M3
     * scale by rceil onto its grid under a tensor scale. Every MX element under every rule, and FP4 under UE4M3 by
     * floor, with -Pexhaustive.
     */
    @ParameterizedTest
    @ValueSource(strings = {"block[custom[fp8e4m3]8,32,e8m0,ceil]", "block[fxp8_6,32,e8m0,even]", "block[custom[fp4e2m1]4,32,e8m0,rceil]",
        "block[custom[fp6e2m3]6,32,e8m0,midmax]", "block[custom[fp4e2m1]4,16,ue4m3,rceil,tensor]", "block[custom[posit]8,32,e8m0,ceil]",
        "block[custom[posit_es1]8,32,e8m0,even]", "block[custom[posit]8,32,e8m0,rceil]", "block[custom[posit_es0]8,32,e8m0,midmax]",
        "block[custom[posit_es3]8,32,e8m0,nearest]", "block[custom[posit_es1]8,16,ue4m3,nearest,tensor]", "block[custom[posit]8,16,ue4m3,rceil]",
        "block[custom[posit_es0]16,32,ue4m3,nearest,tensor]", "block[custom[posit_es3]8,32,ue4m3,even]", "block[custom[posit]32,16,ue4m3,nearest,tensor]",
        "block[custom[posit]32,32,e8m0,midmax]", "block[custom[posit_es3]32,32,e8m0,rceil]"})
    void everyScaleRuleQuantizesAsTheExactReference(String name) {
        checkQuantization(name, RoundingMode.NEAREST_EVEN, rows(name));
    }

    /**
     * The power-of-two rules under a float32 tensor scale (over UE4M3 scales, whose powers of two run from 2^-9 to
     * 2^8, and over E8M0, whose L * S is beyond the 2^48 a tensor scale divides by at most), where a block's exponent comes from amax / t and the elements from |v| / (X t), neither exact in double: with the edge rows (whose extremes make t huge) and the
     * seeded rows alone, in the default rounding and in those that read the most bits of the quotient.
     */
    @ParameterizedTest
    @CsvSource({"'block[custom[fp4e2m1]4,16,ue4m3,floor,tensor]', nearest", "'block[custom[fp8e4m3]8,32,ue4m3,ceil,tensor]', nearest",
        "'block[fxp8_6,32,ue4m3,even,tensor]', nearest-away", "'block[custom[fp6e2m3]6,32,ue4m3,midmax,tensor]', odd",
        "'block[custom[fp8e5m2]8,32,ue4m3,floor,tensor]', up", "'block[custom[posit]8,16,ue4m3,floor,tensor]', nearest",
        "'block[custom[posit_es1]8,32,ue4m3,midmax,tensor]', odd", "'block[custom[posit_es0]8,16,ue4m3,ceil,tensor]', nearest-away",
        "'block[custom[fp8e4m3]8,32,e8m0,floor,tensor]', nearest"})
    void powerOfTwoRulesUnderATensorScaleQuantizeAsTheExactReference(String name, String mode) {
        float[][] rows = rows(name);
        checkQuantization(name, RoundingMode.of(mode), rows);
        checkQuantization(name, RoundingMode.of(mode), Arrays.copyOfRange(rows, EDGE_ROWS, rows.length));
    }

    @Tag("exhaustive")
    @ParameterizedTest
    @ValueSource(strings = {"custom[fp8e4m3]8", "custom[fp8e5m2]8", "custom[fp6e3m2]6", "custom[fp6e2m3]6", "custom[fp4e2m1]4", "fxp8_6"})
    void everyMxElementUnderEveryScaleRule(String element) {
        for (String rule : List.of("floor", "ceil", "even", "rceil", "midmax", "nearest")) {
            String name = "block[" + element + ",32,e8m0," + rule + "]";
            checkQuantization(name, RoundingMode.NEAREST_EVEN, rows(name));
        }
    }

    /** A power-of-two rule under a scale that is not all powers of two: UE4M3's powers run from 2^-9 to 2^8. */
    @Tag("exhaustive")
    @Test
    void fp4UnderAUe4m3ScaleByTheFloorRule() {
        String name = "block[custom[fp4e2m1]4,16,ue4m3,floor]";
        checkQuantization(name, RoundingMode.NEAREST_EVEN, rows(name));
    }

    /** The elements in --rounding's other deterministic modes (--rounding reaches them), edge rows and seeded ones. */
    @ParameterizedTest
    @CsvSource({"mxfp8e4m3, up", "mxfp8e4m3, toward-zero", "mxint8, down", "mxint8, nearest-away", "nvfp4, odd", "mxfp6e2m3, down",
        "'block[custom[posit]8,32,e8m0,floor]', up", "'block[custom[posit]8,32,e8m0,floor]', down", "'block[custom[posit_es1]8,32,e8m0,floor]', toward-zero",
        "'block[custom[posit_es1]8,32,e8m0,floor]', nearest-away", "'block[custom[posit_es0]8,32,e8m0,floor]', odd",
        "'block[custom[posit]32,32,e8m0,floor]', up", "'block[custom[posit]32,32,e8m0,floor]', down", "'block[custom[posit]32,32,e8m0,floor]', odd",
        "'block[custom[posit]32,16,ue4m3,floor,tensor]', toward-zero", "'block[custom[posit_es1]32,32,e8m0,even]', nearest-away"})
    void activationsQuantizeInTheOtherRoundingModesAsTheExactReference(String name, String mode) {
        checkQuantization(name, RoundingMode.of(mode), rows(name));
    }

    static void checkQuantization(String name, RoundingMode mode, float[][] rows) {
        float[] flat = new float[rows.length * K];
        for (int r = 0; r < rows.length; r++) System.arraycopy(rows[r], 0, flat, r * K, K);
        BlockFormat format = format(name).withElementRounding(mode.optionName());
        int size = format.blockSize(), blocks = (K + size - 1) / size;
        List<double[]> quantized = quantizeAtRunTime(format, rows.length, flat);
        BlockReference reference = reference(name, mode);
        // Elements kept as integers (fixed point of more than 24 bits) have no -0: a zero's sign reaches no sum.
        boolean signedZeros = !ElementStorage.of(format).orElseThrow().integers();
        Rational tensorScale = named(name).tensorScale() ? reference.tensorScale(flat) : Rational.of(1);
        if (named(name).tensorScale()) assertEquals(toFloat(tensorScale), quantized.get(2)[0], name + ": tensor scale");
        for (int r = 0; r < rows.length; r++) {
            for (int b = 0; b < blocks; b++) {
                int from = b * size;
                float[] block = Arrays.copyOfRange(rows[r], from, Math.min(K, from + size));
                BlockReference.Block expected = reference.quantize(block, tensorScale);
                double scale = quantized.get(1)[r * blocks + b];
                float wantedScale = expected.scale() == null ? Float.NaN : toFloat(expected.scale());
                if (!(Double.isNaN(scale) && Float.isNaN(wantedScale)) && scale != wantedScale) {
                    fail(name + " row " + r + " block " + b + ": scale " + scale + ", expected " + wantedScale);
                }
                for (int j = 0; j < block.length && expected.scale() != null; j++) {
                    double actual = quantized.get(0)[r * K + from + j];
                    double wanted = exactDouble(signed(expected, j));
                    if (expected.negative()[j]) wanted = -Math.abs(wanted);
                    if (signedZeros ? Double.doubleToRawLongBits(actual) != Double.doubleToRawLongBits(wanted) : actual != wanted) {
                        fail(name + " row " + r + " value " + (from + j) + " (" + block[j] + "): element " + actual + ", expected " + wanted);
                    }
                }
            }
        }
    }

    /**
     * Edge rows (zeros of both signs, NaN, infinities, the spec's clipping example, extremes, ties) and 60 seeded
     * ones; for posit elements then rows of every (N+1)-bit posit (the N-bit ones and the midpoints between them; of
     * wider posits 2,048 spread over the patterns and the 256 at each end, where the regime cuts exponent bits) that
     * float32 holds, and their float32 neighbours, each block led by maxpos so that its scale is 1 under every rule.
     */
    static float[][] rows(String name) {
        float[][] rows = commonRows(name);
        if (!(format(name).element() instanceof PositGrid posit)) return rows;
        PositReference wider = new PositReference(posit.bits() + 1, posit.es());
        long largest = (1L << posit.bits()) - 1, stride = Math.max(1, largest / 2048);
        java.util.SortedSet<Long> patterns = new java.util.TreeSet<>();
        for (long p = 1; p <= largest; p += stride) patterns.add(p);
        for (long p = 1; p <= Math.min(256, largest); p++) patterns.addAll(List.of(p, largest + 1 - p));
        List<Float> values = new java.util.ArrayList<>();
        for (long p : patterns) {
            float v = (float) exactDouble(wider.positiveValue(p));
            values.addAll(List.of(v, -Math.nextDown(v), Math.nextUp(v)));
        }
        values.addAll(List.of((float) posit.smallest() / 2, (float) -posit.smallest() * 0.75f, Float.MIN_VALUE));
        int size = format(name).blockSize(), count = 0;
        List<float[]> positRows = new java.util.ArrayList<>(Arrays.asList(rows));
        while (count < values.size()) {
            float[] row = new float[K];
            for (int i = 0; i < K; i++) row[i] = i % size == 0 ? (float) posit.largest() : count < values.size() ? values.get(count++) : 0f;
            positRows.add(row);
        }
        return positRows.toArray(float[][]::new);
    }

    private static float[][] commonRows(String name) {
        BlockFormat format = format(name);
        float largest = (float) format.element().largest();
        float midpointAbove = (float) format.element().midpointAboveLargest();
        float[][] edges = {
            {0f, -0f, 0f, -0f},
            {1f, Float.NaN, 2f},
            {1f, Float.POSITIVE_INFINITY},
            {-3f, Float.NEGATIVE_INFINITY, 0f},
            {960f, 957f, -960f, 1f, 0.001f},
            {Float.MAX_VALUE, -Float.MAX_VALUE, 1e30f, 1f},
            {Float.MIN_VALUE, -Float.MIN_VALUE, 2 * Float.MIN_VALUE, 0f, -0f},
            {1f, Math.nextDown(1f), 0.5f, -0.25f},
            {Math.nextDown(2f), 1.5f, 1.25f, 1.125f, 1.0625f},
            {largest, midpointAbove, -midpointAbove, Math.nextUp(midpointAbove), Math.nextDown(midpointAbove)},
            {64f, 0.5f, 0.25f + 0.125f / 2, 1.5f / 64, 3f / 256, -5f / 512},
        };
        SplittableRandom random = new SplittableRandom(name.hashCode());
        assertEquals(EDGE_ROWS, edges.length);
        float[][] rows = new float[EDGE_ROWS + 60][K];
        for (int r = 0; r < edges.length; r++) {
            for (int i = 0; i < K; i++) rows[r][i] = edges[r][i % edges[r].length];
        }
        for (int r = edges.length; r < rows.length; r++) {
            int range = r % 3 == 0 ? 40 : 6;
            for (int i = 0; i < K; i++) {
                float v = (float) Math.scalb(random.nextDouble(-1, 1), random.nextInt(-range, range + 1));
                // Some exact ties: a multiple of a small power of two that halves the element grid's step.
                rows[r][i] = r % 4 == 1 ? (float) Math.scalb((double) random.nextInt(-200, 201), -random.nextInt(0, 8)) : v;
            }
        }
        return rows;
    }

    /**
     * The run-time quantizer's elements (as values: integers kept for fixed point times their unit), block scales
     * and tensor scale (1 without one) of a [rows, K] tensor.
     */
    static List<double[]> quantizeAtRunTime(BlockFormat format, int rows, float[] values) {
        long[] shape = {rows, K};
        long blocks = (K + format.blockSize() - 1) / format.blockSize();
        ElementStorage storage = ElementStorage.of(format).orElseThrow();
        Buffer in = new Buffer("x", ScalarType.REAL, shape);
        // Elements kept as doubles (posits float32 does not hold) come out as doubles.
        Buffer elementsOut = new Buffer("elements", storage.type() == ScalarType.F32 ? ScalarType.REAL : storage.type(), shape);
        Buffer scalesOut = new Buffer("scales", ScalarType.REAL, new long[] {rows, blocks});
        Buffer tensorOut = new Buffer("tensor", ScalarType.REAL, new long[] {1});
        KernelBuilder kb = new KernelBuilder("quantize", "BlockQuantize", List.of(in), List.of(elementsOut, scalesOut, tensorOut));
        Buffer elements = kb.scratch("elements", storage.type(), shape);
        Buffer scales = kb.scratch("scales", ScalarType.F32, new long[] {rows, blocks});
        Buffer tensor = kb.scratch("tensor", ScalarType.F32, new long[] {1});
        new ActivationQuantizer(format).emit(kb, in, elements, scales, format.name().tensorScale() ? tensor : null, rows, K, 1);
        if (!format.name().tensorScale()) kb.store(tensor, idx(0), constant(ScalarType.F32, 1));
        for (Buffer[] copy : new Buffer[][] {{elements, elementsOut}, {scales, scalesOut}, {tensor, tensorOut}}) {
            kb.loop(copy[0].size(), i -> kb.store(copy[1], i, cast(copy[1].elementType(), kb.load(copy[0], i))));
        }
        List<Buffer> outputs = List.of(elementsOut, scalesOut, tensorOut);
        Kernel kernel = kb.build();
        // Constants the quantizer may hold.
        Map<Buffer, java.lang.foreign.MemorySegment> constants = new LinkedHashMap<>();
        kernel.constants().forEach((buffer, value) -> constants.put(buffer, value.data()));
        Program program = new Program("quantize", List.of(kernel), List.of(in), List.of(new TensorSpec("x", ElementType.FLOAT32, shape)),
            outputs, outputs.stream().map(b -> new TensorSpec(b.name(), switch (b.elementType()) {
                case I64 -> ElementType.INT64;
                case F64 -> ElementType.DOUBLE;
                default -> ElementType.FLOAT32;
            }, b.shape())).toList(),
            constants, List.of());
        try (CompiledModule module = Compiler.compile(program, CompileOptions.host()); HostModel model = Compiler.jit(module)) {
            List<Tensor> results = model.run(List.of(Tensor.ofFloats(shape, values)));
            List<double[]> quantized = new ArrayList<>();
            Tensor quantizedElements = results.getFirst();
            quantized.add(storage.integers() ? Arrays.stream(quantizedElements.toLongArray()).mapToDouble(k -> k * storage.unit()).toArray()
                : java.util.stream.LongStream.range(0, quantizedElements.elementCount()).mapToDouble(quantizedElements::getDouble).toArray());
            for (Tensor t : results.subList(1, results.size())) quantized.add(asDoubles(t.toFloatArray()));
            return quantized;
        }
    }

    private static double[] asDoubles(float[] values) {
        double[] doubles = new double[values.length];
        for (int i = 0; i < values.length; i++) doubles[i] = values[i];
        return doubles;
    }

    /** A rational whose value is a double (an element), as that double. */
    static double exactDouble(Rational q) {
        double d = new BigDecimal(q.num()).divide(new BigDecimal(q.den())).doubleValue();
        assertEquals(0, q.compareTo(Rational.of(new BigDecimal(d))), q + " is a double exactly");
        return d;
    }

    // ---- dot products

    /**
     * Posit blocks sum in float32 (posit6 es 0), a double (posit8 es 0 and 1; es 0 under UE4M3 scales, whose 8 bits its
     * 29 leave room for) and limbs (posit8 es 2 and 3, posit16 es 1; posit8 es 1 and es 2 under UE4M3, each product
     * times its scales; posit28 and posit32 under UE4M3, each product times its scales as two doubles).
     */
    @ParameterizedTest
    @ValueSource(strings = {"mxfp8e4m3", "mxfp8e5m2", "mxfp6e3m2", "mxfp6e2m3", "mxfp4", "mxint8", "nvfp4", "block[custom[fp4e2m1]4,32,ue4m3,floor,tensor]",
        "block[custom[posit_es0]6,32,e8m0,floor]", "block[custom[posit_es0]8,32,e8m0,floor]", "block[custom[posit_es1]8,32,e8m0,floor]",
        "block[custom[posit]8,32,e8m0,floor]", "block[custom[posit_es3]8,32,e8m0,rceil]", "block[custom[posit_es1]16,32,e8m0,floor]",
        "block[custom[posit_es0]8,16,ue4m3,nearest,tensor]", "block[custom[posit_es1]8,32,ue4m3,rceil]", "block[custom[posit]8,16,ue4m3,floor,tensor]",
        "block[custom[posit]24,32,e8m0,floor]", "block[custom[posit]32,32,e8m0,floor]", "block[custom[posit]32,16,e8m0,rceil,tensor]",
        "block[custom[posit]32,16,ue4m3,nearest,tensor]", "block[custom[posit]28,32,ue4m3,floor]"})
    void matMulSumsExactBlocksInFloat32(String name) {
        int m = 7, n = 5;
        float[] a = seeded(name.hashCode() + 1, 2 * m * K, 4), b = seeded(name.hashCode() + 2, K * n, 1);
        a[3] = -0f;
        Graph graph = node("MatMul", new long[] {2, m, K}, new long[] {2, m, n}, Map.of(), Tensor.ofFloats(new long[] {K, n}, b), null);
        float[] actual = run(graph, name, new long[] {2, m, K}, a);
        assertBits(name, expectedMatMul(reference(name), named(name).blockSize(), a, b, n, tensorScale(name, a), tensorScale(name, b)), actual);
    }

    /** The reference's [rows, n] product of a [rows, K] activation and [K, n] weights under tensor scales ta and tb. */
    static float[] expectedMatMul(BlockReference reference, int size, float[] a, float[] b, int n, Rational ta, Rational tb) {
        int rows = a.length / K;
        float[] expected = new float[rows * n];
        for (int row = 0; row < rows; row++) {
            for (int col = 0; col < n; col++) {
                float[] x = Arrays.copyOfRange(a, row * K, row * K + K);
                float[] w = new float[K];
                for (int k = 0; k < K; k++) w[k] = b[k * n + col];
                expected[row * n + col] = blockDot(reference, size, x, w, ta, tb);
            }
        }
        return expected;
    }

    @ParameterizedTest
    @ValueSource(strings = {"mxfp8e4m3", "mxfp8e5m2", "mxfp6e3m2", "mxfp6e2m3", "mxfp4", "mxint8", "nvfp4", "block[custom[posit]8,32,e8m0,floor]",
        "block[custom[posit_es1]8,32,e8m0,floor]"})
    void gemmWithTransposedWeightsAndBias(String name) {
        int m = 3, n = 6;
        float[] a = seeded(name.hashCode() + 3, m * K, 100), b = seeded(name.hashCode() + 4, n * K, 0.01), c = seeded(5, n, 1);
        Graph graph = node("Gemm", new long[] {m, K}, new long[] {m, n}, Map.of("transB", new Attribute.IntAttr(1)),
            Tensor.ofFloats(new long[] {n, K}, b), Tensor.ofFloats(new long[] {n}, c));
        float[] actual = run(graph, name, new long[] {m, K}, a);
        BlockReference reference = reference(name);
        float[] expected = new float[m * n];
        for (int row = 0; row < m; row++) {
            for (int col = 0; col < n; col++) {
                float dot = blockDot(reference, named(name).blockSize(), Arrays.copyOfRange(a, row * K, row * K + K),
                    Arrays.copyOfRange(b, col * K, col * K + K), tensorScale(name, a), tensorScale(name, b));
                expected[row * n + col] = dot + c[col];
            }
        }
        assertBits(name, expected, actual);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mxfp8e4m3", "mxfp8e5m2", "mxfp6e3m2", "mxfp6e2m3", "mxfp4", "mxint8", "nvfp4", "block[custom[posit]8,32,e8m0,floor]",
        "block[custom[posit_es0]8,32,e8m0,floor]"})
    void convBlocksRunAlongInputChannels(String name) {
        int batch = 2, channels = 40, maps = 3, h = 5, w = 4, kh = 3, kw = 2;
        int oh = h, ow = w - 1;   // pads 1 top and bottom, none at the sides, stride 1
        float[] x = seeded(name.hashCode() + 6, batch * channels * h * w, 2), weights = seeded(name.hashCode() + 7, maps * channels * kh * kw, 0.5),
            bias = seeded(8, maps, 1);
        Map<String, Attribute> attributes = Map.of("pads", new Attribute.IntsAttr(new long[] {1, 0, 1, 0}));
        Graph graph = node("Conv", new long[] {batch, channels, h, w}, new long[] {batch, maps, oh, ow}, attributes,
            Tensor.ofFloats(new long[] {maps, channels, kh, kw}, weights), Tensor.ofFloats(new long[] {maps}, bias));
        float[] actual = run(graph, name, new long[] {batch, channels, h, w}, x);
        float[] expected = expectedConv(name, x, weights, bias, new int[] {batch, channels, h, w}, 1, new int[] {maps, kh, kw}, 1);
        assertBits(name, expected, actual);
    }

    /**
     * Attention's Q K^T: a MatMul of two activations, each quantized when the node runs along K (A's rows, B's
     * columns), under broadcast batch dimensions ([2, 1] against [3]), NVFP4's tensor scale over each whole operand.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mxfp8e5m2", "nvfp4", "block[custom[posit]8,32,e8m0,floor]", "block[custom[posit_es1]8,16,ue4m3,nearest,tensor]"})
    void matMulOfTwoActivations(String name) {
        checkMatMulOfTwoActivations(name);
    }

    /** The cases below of two activations, transA, alpha and beta, and groups, in more formats. */
    @Tag("exhaustive")
    @Test
    void theNewDotProductsInTheOtherFormats() {
        for (String name : List.of("mxfp8e4m3", "mxfp6e3m2", "mxfp6e2m3", "mxfp4", "mxint8")) checkMatMulOfTwoActivations(name);
        for (String name : List.of("mxfp8e4m3", "mxint8")) checkGemmWithTransposedActivationsAlphaAndBeta(name);
        for (String name : List.of("mxfp4", "nvfp4")) checkGroupedConv(name);
    }

    static void checkMatMulOfTwoActivations(String name) {
        int m = 3, n = 4;
        long[] aShape = {2, 1, m, K}, bShape = {3, K, n}, yShape = {2, 3, m, n};
        float[] a = seeded(name.hashCode() + 11, 2 * m * K, 8), b = seeded(name.hashCode() + 12, 3 * K * n, 0.05);
        a[5] = Float.NaN;
        b[7 * n + 1] = -0f;
        Graph graph = activations("MatMul", aShape, bShape, yShape, Map.of(), null);
        float[] actual = run(graph, name, List.of(Tensor.ofFloats(aShape, a), Tensor.ofFloats(bShape, b)));
        BlockReference reference = reference(name);
        float[] expected = new float[2 * 3 * m * n];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                for (int row = 0; row < m; row++)
                    for (int col = 0; col < n; col++) {
                        float[] x = Arrays.copyOfRange(a, (i * m + row) * K, (i * m + row + 1) * K);
                        float[] w = new float[K];
                        for (int k = 0; k < K; k++) w[k] = b[(j * K + k) * n + col];
                        expected[((i * 3 + j) * m + row) * n + col] = blockDot(reference, named(name).blockSize(), x, w, tensorScale(name, a), tensorScale(name, b));
                    }
        assertTrue(Float.isNaN(expected[0]) && Float.isNaN(expected[m * n]) && !Float.isNaN(expected[n]), "the NaN's row, and only it, is NaN");
        assertBits(name, expected, actual);
    }

    /** Gemm with transA, an activation B, alpha and beta: alpha, beta and C apply to the dot product's float32 result in the vector datatype. */
    @Test
    void gemmWithTransposedActivationsAlphaAndBeta() {
        checkGemmWithTransposedActivationsAlphaAndBeta("nvfp4");
    }

    static void checkGemmWithTransposedActivationsAlphaAndBeta(String name) {
        int m = 3, n = 5;
        float alpha = 0.375f, beta = -1.5f;
        float[] a = seeded(name.hashCode() + 13, K * m, 3), b = seeded(name.hashCode() + 14, K * n, 0.2), c = seeded(15, m * n, 1);
        Map<String, Attribute> attributes = Map.of("transA", new Attribute.IntAttr(1), "alpha", new Attribute.FloatAttr(alpha),
            "beta", new Attribute.FloatAttr(beta));
        Graph graph = activations("Gemm", new long[] {K, m}, new long[] {K, n}, new long[] {m, n}, attributes, Tensor.ofFloats(new long[] {m, n}, c));
        float[] actual = run(graph, name, List.of(Tensor.ofFloats(new long[] {K, m}, a), Tensor.ofFloats(new long[] {K, n}, b)));
        BlockReference reference = reference(name);
        float[] expected = new float[m * n];
        for (int row = 0; row < m; row++) {
            for (int col = 0; col < n; col++) {
                float[] x = new float[K], w = new float[K];
                for (int k = 0; k < K; k++) {
                    x[k] = a[k * m + row];
                    w[k] = b[k * n + col];
                }
                float dot = blockDot(reference, named(name).blockSize(), x, w, tensorScale(name, a), tensorScale(name, b));
                expected[row * n + col] = alpha * dot + beta * c[row * n + col];
            }
        }
        assertBits(name, expected, actual);
    }

    /** A grouped Conv: each map's blocks run along its own group's input channels (20 of them: a partial block). */
    @Test
    void groupedConvBlocksRunAlongEachGroupsChannels() {
        checkGroupedConv("mxfp8e4m3");
    }

    static void checkGroupedConv(String name) {
        int batch = 2, groups = 2, perGroup = 20, maps = 4, h = 4, w = 3, kh = 2, kw = 2;
        int oh = h - 1, ow = w - 1, channels = groups * perGroup;
        float[] x = seeded(name.hashCode() + 16, batch * channels * h * w, 2), weights = seeded(name.hashCode() + 17, maps * perGroup * kh * kw, 0.5);
        Graph graph = node("Conv", new long[] {batch, channels, h, w}, new long[] {batch, maps, oh, ow}, Map.of("group", new Attribute.IntAttr(groups)),
            Tensor.ofFloats(new long[] {maps, perGroup, kh, kw}, weights), null);
        float[] actual = run(graph, name, new long[] {batch, channels, h, w}, x);
        float[] expected = expectedConv(name, x, weights, null, new int[] {batch, channels, h, w}, groups, new int[] {maps, kh, kw}, 0);
        assertBits(name, expected, actual);
    }

    /** The same Conv with bfloat16 as the vector datatype: inputs that are bfloat16s, each output the float32 one rounded to bfloat16. */
    @Test
    void theVectorDatatypeRoundsTheDotProductsFloat32Result() {
        int batch = 1, channels = 40, maps = 3, h = 5, w = 4;
        float[] x = seeded(31, batch * channels * h * w, 2), weights = seeded(32, maps * channels * 6, 0.5);
        for (int i = 0; i < x.length; i++) x[i] = Float.intBitsToFloat(Float.floatToRawIntBits(x[i]) & 0xFFFF0000);
        Graph graph = node("Conv", new long[] {batch, channels, h, w}, new long[] {batch, maps, h - 2, w - 1}, Map.of(),
            Tensor.ofFloats(new long[] {maps, channels, 3, 2}, weights), null);
        float[] inFloat32 = run(graph, "mxfp8e4m3", new long[] {batch, channels, h, w}, x);
        float[] expected = new float[inFloat32.length];
        for (int i = 0; i < expected.length; i++) expected[i] = bfloat16(inFloat32[i]);
        float[] inBfloat16;
        try (CompiledModule module = Compiler.compile(graph, options("mxfp8e4m3").withDatatype("bfloat16")); HostModel model = Compiler.jit(module)) {
            inBfloat16 = model.run(List.of(Tensor.ofFloats(new long[] {batch, channels, h, w}, x))).getFirst().toFloatArray();
        }
        assertBits("mxfp8e4m3 in bfloat16", expected, inBfloat16);
    }

    @Test
    void aConvReadingAnotherKernelsOutputGivesTheSameBits() {
        int batch = 2, channels = 6, maps = 16, h = 14, w = 14;
        float[] x = seeded(21, batch * channels * h * w, 1), weights = seeded(22, maps * channels * 25, 0.3);
        Graph graph = node("Conv", new long[] {batch, channels, h, w}, new long[] {batch, maps, h - 4, w - 4}, Map.of(),
            Tensor.ofFloats(new long[] {maps, channels, 5, 5}, weights), null);
        float[] direct = run(graph, "mxfp8e4m3", new long[] {batch, channels, h, w}, x);
        float[] negatedInput = x.clone();
        for (int i = 0; i < x.length; i++) negatedInput[i] = -x[i];
        assertBits("mxfp8e4m3", direct, run(negatedFirst(graph), "mxfp8e4m3", new long[] {batch, channels, h, w}, negatedInput));
    }

    /** Two Convs with a Neg between them give what each gives alone: their tensors and scratch buffers in the workspace stay apart. */
    @Test
    void chainedDotProductsGiveWhatEachGivesAlone() {
        long[] xShape = {2, 1, 28, 28}, hShape = {2, 6, 24, 24}, yShape = {2, 16, 20, 20};
        float[] x = seeded(41, 2 * 28 * 28, 1), w1 = seeded(42, 6 * 25, 0.5), w2 = seeded(43, 16 * 6 * 25, 0.2);
        Graph first = node("Conv", xShape, hShape, Map.of(), Tensor.ofFloats(new long[] {6, 1, 5, 5}, w1), null);
        Graph second = node("Conv", hShape, yShape, Map.of(), Tensor.ofFloats(new long[] {16, 6, 5, 5}, w2), null);
        float[] hidden = run(first, "mxfp8e4m3", xShape, x);
        for (int i = 0; i < hidden.length; i++) hidden[i] = -hidden[i];
        float[] alone = run(second, "mxfp8e4m3", hShape, hidden);

        Node conv1 = first.nodes().getFirst(), conv2 = second.nodes().getFirst();
        Value h = new Value("h"), negated = new Value("negated");
        h.setType(new TensorType(ElementType.FLOAT32, hShape));
        negated.setType(new TensorType(ElementType.FLOAT32, hShape));
        Node a = new Node("conv1", "Conv", "", 13, conv1.inputs(), List.of(h), Map.of());
        Node neg = new Node("neg", "Neg", "", 13, List.of(h), List.of(negated), Map.of());
        List<Value> inputs = new java.util.ArrayList<>(conv2.inputs());
        inputs.set(0, negated);
        Node b = new Node("conv2", "Conv", "", 13, inputs, conv2.outputs(), Map.of());
        Graph chain = new Graph("chain", first.inputs(), conv2.outputs(), List.of(a, neg, b));
        assertBits("mxfp8e4m3 chain", alone, run(chain, "mxfp8e4m3", xShape, x));
    }

    /**
     * --accumulate dtype: each block's float32 result converted to the vector datatype (bfloat16, nearest even) and
     * added there from +0 in block order; a float32 add of two bfloat16s rounded to bfloat16 is the exact sum
     * rounded once (24 >= 2 * 8 + 2 bits), so the expected values are computed so.
     */
    @Test
    void accumulateDtypeAddsTheBlocksResultsInTheVectorDatatype() {
        int m = 4, n = 3, k = 160;
        float[] a = seeded(51, m * k, 3), b = seeded(52, k * n, 1);
        for (int i = 0; i < a.length; i++) a[i] = bfloat16(a[i]);
        Graph graph = node("MatMul", new long[] {m, k}, new long[] {m, n}, Map.of(), Tensor.ofFloats(new long[] {k, n}, b), null);
        CompileOptions options = CompileOptions.host().withBlocks(new BlockChoice(Optional.of(named("mxfp6e2m3")), List.of(), BlockChoice.Accumulation.DTYPE))
            .withDatatype("bfloat16");
        float[] actual;
        try (CompiledModule module = Compiler.compile(graph, options); HostModel model = Compiler.jit(module)) {
            actual = model.run(List.of(Tensor.ofFloats(new long[] {m, k}, a))).getFirst().toFloatArray();
        }
        BlockReference reference = reference("mxfp6e2m3");
        float[] expected = new float[m * n];
        for (int row = 0; row < m; row++) {
            for (int col = 0; col < n; col++) {
                float acc = 0;
                for (int from = 0; from < k; from += 32) {
                    float[] x = Arrays.copyOfRange(a, row * k + from, row * k + from + 32), w = new float[32];
                    for (int j = 0; j < 32; j++) w[j] = b[(from + j) * n + col];
                    acc = bfloat16(acc + bfloat16(addBlocks(0f, reference, 32, x, w, Rational.of(1), Rational.of(1))));
                }
                expected[row * n + col] = acc;
            }
        }
        assertBits("mxfp6e2m3 accumulate dtype", expected, actual);
    }

    /**
     * --accumulate exact: the exact sum of every block's exact sum times its scales, over the whole row, rounded once
     * to float32 (then times NVFP4's tensor scales as a float32 alpha), on seeded rows and two built ones: blocks
     * holding 1, 2^-24 and 2^-100, whose sum rounds up to 1 + 2^-23 only when the 2^-100 counts (a tie without
     * it), and blocks holding 1, 2^-30 and -1, which float32 accumulation makes 0.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mxfp8e4m3", "mxfp8e5m2", "mxint8", "mxfp4", "nvfp4", "block[custom[posit]8,32,e8m0,floor]",
        "block[custom[posit_es1]8,32,e8m0,floor]", "block[custom[posit]32,32,e8m0,floor,tensor]", "block[custom[posit]32,16,ue4m3,nearest,tensor]"})
    void accumulateExactRoundsTheWholeSumOnce(String name) {
        int m = 6, n = 5, k = 160;
        float[] a = seeded(name.hashCode() + 71, m * k, 4), b = seeded(name.hashCode() + 72, k * n, 1);
        float[][] built = {{1, 0x1p-24f, 0x1p-100f}, {1, 0x1p-30f, -1}};
        for (int row = 0; row < built.length; row++) {
            for (int j = 0; j < k; j++) {
                a[row * k + j] = j % 32 == 0 && j / 32 < 3 ? built[row][j / 32] : 0;
                b[j * n + row] = j % 32 == 0 && j / 32 < 3 ? 1 : 0;
            }
        }
        Graph graph = node("MatMul", new long[] {m, k}, new long[] {m, n}, Map.of(), Tensor.ofFloats(new long[] {k, n}, b), null);
        float[] actual = runAccumulatingExactly(graph, name, new long[] {m, k}, a);
        BlockReference reference = reference(name);
        Rational ta = tensorScale(name, a), tb = tensorScale(name, b);
        float[] expected = new float[m * n];
        for (int row = 0; row < m; row++) {
            for (int col = 0; col < n; col++) {
                float[] w = new float[k];
                for (int j = 0; j < k; j++) w[j] = b[j * n + col];
                expected[row * n + col] = scaled(exactBlockSum(reference, named(name).blockSize(), Arrays.copyOfRange(a, row * k, row * k + k), w, ta, tb), ta, tb);
            }
        }
        if (!named(name).tensorScale()) {
            assertEquals(1 + 0x1p-23f, expected[0]);
            assertEquals(0x1p-30f, expected[n + 1]);
        }
        assertBits(name + " accumulate exact", expected, actual);
    }

    /** The graph's output on {@code input} in the block datatype {@code name} under --accumulate exact. */
    static float[] runAccumulatingExactly(Graph graph, String name, long[] shape, float[] input) {
        CompileOptions options = CompileOptions.host().withBlocks(new BlockChoice(Optional.of(named(name)), List.of(), BlockChoice.Accumulation.EXACT));
        try (CompiledModule module = Compiler.compile(graph, options); HostModel model = Compiler.jit(module)) {
            return model.run(List.of(Tensor.ofFloats(shape, input))).getFirst().toFloatArray();
        }
    }

    /** Every block's exact sum of products times both scales, summed exactly over x . w, rounded once to float32. */
    static float exactBlockSum(BlockReference reference, int size, float[] x, float[] w, Rational tx, Rational tw) {
        Rational total = Rational.ZERO;
        for (int from = 0; from < x.length; from += size) {
            int to = Math.min(x.length, from + size);
            BlockReference.Block qx = reference.quantize(Arrays.copyOfRange(x, from, to), tx);
            BlockReference.Block qw = reference.quantize(Arrays.copyOfRange(w, from, to), tw);
            if (qx.scale() == null || qw.scale() == null) return Float.NaN;
            for (int j = 0; j < to - from; j++) total = total.add(signed(qx, j).multiply(signed(qw, j)).multiply(qx.scale()).multiply(qw.scale()));
        }
        return toFloat(total);
    }

    /** A --dtype-map entry puts one node of a float32 model in blocks: the second of two Convs gives what it gives alone on the first's float32 output. */
    @Test
    void aDtypeMapEntryPutsOneNodesDotProductsInBlocks() {
        long[] xShape = {1, 1, 12, 12}, hShape = {1, 6, 8, 8}, yShape = {1, 4, 4, 4};
        float[] x = seeded(61, 144, 1), w1 = seeded(62, 6 * 25, 0.5), w2 = seeded(63, 4 * 6 * 25, 0.2);
        Graph first = node("Conv", xShape, hShape, Map.of(), Tensor.ofFloats(new long[] {6, 1, 5, 5}, w1), null);
        Graph second = node("Conv", hShape, yShape, Map.of(), Tensor.ofFloats(new long[] {4, 6, 5, 5}, w2), null);
        float[] hidden;
        try (CompiledModule module = Compiler.compile(first, CompileOptions.host()); HostModel model = Compiler.jit(module)) {
            hidden = model.run(List.of(Tensor.ofFloats(xShape, x))).getFirst().toFloatArray();
        }
        float[] alone = run(second, "mxfp4", hShape, hidden);

        Node conv1 = first.nodes().getFirst(), conv2 = second.nodes().getFirst();
        Value h = new Value("h");
        h.setType(new TensorType(ElementType.FLOAT32, hShape));
        List<Value> inputs = new java.util.ArrayList<>(conv2.inputs());
        inputs.set(0, h);
        Graph chain = new Graph("chain", first.inputs(), conv2.outputs(), List.of(new Node("conv1", "Conv", "", 13, conv1.inputs(), List.of(h), Map.of()),
            new Node("conv2", "Conv", "", 13, inputs, conv2.outputs(), Map.of())));
        CompileOptions mapped = CompileOptions.host().withBlocks(new BlockChoice(Optional.empty(), DatatypeChoice.parseOverrides("conv2=mxfp4"),
            BlockChoice.Accumulation.FLOAT32));
        try (CompiledModule module = Compiler.compile(chain, mapped); HostModel model = Compiler.jit(module)) {
            assertBits("conv2=mxfp4", alone, model.run(List.of(Tensor.ofFloats(xShape, x))).getFirst().toFloatArray());
        }
    }

    private static float bfloat16(float v) {
        int bits = Float.floatToRawIntBits(v);
        return Float.intBitsToFloat((bits + 0x7FFF + ((bits >>> 16) & 1)) & 0xFFFF0000);
    }

    /**
     * FP8 E5M2's block sums need up to 69 bits: rows whose values spread over 2^-24 .. 1 give sums that a double
     * rounds, where only the two exact parts and the rounding to odd give the exact sum's float32.
     */
    @Test
    void e5m2sWideBlockSumsRoundOnceFromTheExactSum() {
        int m = 40, n = 8;
        SplittableRandom random = new SplittableRandom(15);
        float[] a = new float[m * K], b = new float[K * n];
        for (int i = 0; i < a.length; i++) a[i] = (float) Math.scalb(random.nextDouble(-1, 1), -random.nextInt(0, 25));
        for (int i = 0; i < b.length; i++) b[i] = (float) Math.scalb(random.nextDouble(-1, 1), -random.nextInt(0, 25));
        // Column 0 against rows 0 to 3: sums a double rounds onto a float32 midpoint, whose ties would go the
        // wrong way (1 + 2^-24 + 2^-60 is 1 + 2^-23; 1 + 3 2^-24 - 2^-60 is 1 + 2^-23 too), and one just below 1.
        float[] column = {1, 1, 1, 0x1p-30f};
        float[][] rows = {{1, 0x1p-24f, 0, 0x1p-30f}, {1, 0x1p-23f, 0x1p-24f, -0x1p-30f}, {-1, -0x1p-24f, 0, -0x1p-30f}, {1, 0, 0, -0x1p-30f}};
        for (int k = 0; k < K; k++) b[k * n] = k < column.length ? column[k] : 0;
        for (int r = 0; r < rows.length; r++) {
            for (int k = 0; k < K; k++) a[r * K + k] = k < rows[r].length ? rows[r][k] : 0;
        }
        Graph graph = node("MatMul", new long[] {m, K}, new long[] {m, n}, Map.of(), Tensor.ofFloats(new long[] {K, n}, b), null);
        float[] actual = run(graph, "mxfp8e5m2", new long[] {m, K}, a);
        BlockReference reference = reference("mxfp8e5m2");
        float[] expected = new float[m * n];
        for (int row = 0; row < m; row++) {
            for (int col = 0; col < n; col++) {
                float[] w = new float[K];
                for (int k = 0; k < K; k++) w[k] = b[k * n + col];
                expected[row * n + col] = blockDot(reference, 32, Arrays.copyOfRange(a, row * K, row * K + K), w, Rational.of(1), Rational.of(1));
            }
        }
        assertEquals(1 + 0x1p-23f, expected[0]);
        assertEquals(1 + 0x1p-23f, expected[n]);
        assertBits("mxfp8e5m2", expected, actual);
    }

    /**
     * posit8 es 2's block sums need up to 101 bits: 2^24 2^24 + 2^24 1 + 2^-24 2^-24 = 2^48 + 2^24 + 2^-48 is above
     * the float32 midpoint 2^48 + 2^24 only by a product a double cannot hold beside it, so only the limbs give its
     * float32, 2^48 + 2^25 (a double sum would tie to 2^48); its negation and the midpoint alone (to even: 2^48) too.
     */
    @Test
    void positBlockSumsRoundOnceFromTheExactSum() {
        String name = "block[custom[posit]8,32,e8m0,floor]";
        int m = 3, n = 1;
        float[] b = new float[K];
        b[0] = 0x1p24f;
        b[1] = 1;
        b[2] = 0x1p-24f;
        float[][] rows = {{0x1p24f, 0x1p24f, 0x1p-24f}, {-0x1p24f, -0x1p24f, -0x1p-24f}, {0x1p24f, 0x1p24f, 0}};
        float[] a = new float[m * K];
        for (int r = 0; r < m; r++) System.arraycopy(rows[r], 0, a, r * K, 3);
        Graph graph = node("MatMul", new long[] {m, K}, new long[] {m, n}, Map.of(), Tensor.ofFloats(new long[] {K, n}, b), null);
        float[] expected = expectedMatMul(reference(name), 32, a, b, n, Rational.of(1), Rational.of(1));
        assertEquals(0x1p48f + 0x1p25f, expected[0]);
        assertEquals(-0x1p48f - 0x1p25f, expected[1]);
        assertEquals(0x1p48f, expected[2]);
        assertBits(name, expected, run(graph, name, new long[] {m, K}, a));
    }

    /**
     * Under scales that are not powers of two a block sum in limbs rounded to odd, then scaled, is not the scaled sum
     * rounded once: posit8 es 2 under UE4M3 by rceil, A's block scale 1.5 (its largest value 1.5 2^24, against a 0 of
     * B) and B's 1 (2^24, against a 0 of A); the other products 2^2 2^2 + 2^-9 2^-9 - 2^-10 2^-11 - 2^-11 2^-12 make
     * S = 16 + 13 2^-22 + 2^-23, which rounded to odd at the limbs' 27 bits is T = 16 + 13 2^-22, so 1.5 T is
     * 2^-23 below the float32 midpoint M = 24 + 5 2^-20 and rounds down, while 1.5 S = M + 2^-24 rounds up, to
     * 24 + 3 2^-19; so only the products times the scales in the limbs give it (and its negation).
     */
    @Test
    void positBlockSumsUnderScalesThatAreNotPowersOfTwoRoundOnceFromTheExactScaledSum() {
        String name = "block[custom[posit]8,32,ue4m3,rceil]";
        int m = 2, n = 1;
        float[] b = new float[K];
        float[] row = {1.5f * 0x1p24f, 0, 1.5f * 4, 1.5f * 0x1p-9f, -1.5f * 0x1p-10f, -1.5f * 0x1p-11f};
        float[] column = {0, 0x1p24f, 4, 0x1p-9f, 0x1p-11f, 0x1p-12f};
        float[] a = new float[m * K];
        for (int k = 0; k < row.length; k++) {
            a[k] = row[k];
            a[K + k] = -row[k];
            b[k] = column[k];
        }
        Graph graph = node("MatMul", new long[] {m, K}, new long[] {m, n}, Map.of(), Tensor.ofFloats(new long[] {K, n}, b), null);
        float[] expected = expectedMatMul(reference(name), 32, a, b, n, Rational.of(1), Rational.of(1));
        assertEquals(24 + 0x3p-19f, expected[0]);
        assertEquals(-24 - 0x3p-19f, expected[1]);
        assertBits(name, expected, run(graph, name, new long[] {m, K}, a));
    }

    /**
     * MXFP8 E5M2 tiles sum a block in one double where the smallest nonzero elements of their rows and columns
     * are large enough ({@code ExactBlockSum.fitsOneDouble}) and in two parts elsewhere. Two runs of 8 rows by 8
     * columns over blocks that spread over 2^-24 .. 1 (wide) or lie within 2^15 (narrow): run 0's rows wide,
     * narrow, wide in blocks 0, 1, 2, run 1's narrow, wide, wide, the columns wide, narrow, narrow, so each run
     * has blocks of both kinds. Run 0's block 1 meets the bound exactly: 57344, the largest element, gives every
     * block there a scale of 1, and the smallest elements 1.75 2^-6 (rows) and 1.75 2^-5 (columns) make
     * 32 57344^2 2^7 = 2^53 1.75 2^-6 1.75 2^-5.
     */
    @Test
    void e5m2TilesSumInOneDoubleWhereTheirBlocksFitAndInTwoPartsElsewhere() {
        int m = 16, n = 8;
        SplittableRandom random = new SplittableRandom(16);
        float[] a = new float[m * K], b = new float[K * n];
        boolean[][] rowsWide = {{true, false, true}, {false, true, true}};
        boolean[] columnsWide = {true, false, false};
        for (int row = 0; row < m; row++) {
            for (int k = 0; k < K; k++) a[row * K + k] = spread(random, rowsWide[row / 8][k / 32]);
        }
        for (int k = 0; k < K; k++) {
            for (int col = 0; col < n; col++) b[k * n + col] = spread(random, columnsWide[k / 32]);
        }
        for (int row = 0; row < 8; row++) {
            a[row * K + 32] = 57344;
            a[row * K + 34] = 0x1.cp-6f;
        }
        for (int col = 0; col < n; col++) {
            b[32 * n + col] = 57344;
            b[33 * n + col] = 0x1.cp-5f;
        }
        Graph graph = node("MatMul", new long[] {m, K}, new long[] {m, n}, Map.of(), Tensor.ofFloats(new long[] {K, n}, b), null);
        float[] actual = run(graph, "mxfp8e5m2", new long[] {m, K}, a);
        assertBits("mxfp8e5m2", expectedMatMul(reference("mxfp8e5m2"), 32, a, b, n, Rational.of(1), Rational.of(1)), actual);
    }

    /** A random value of either sign below 1 and down to 2^-24 or less (wide), or from 1 to 2^15 (narrow). */
    private static float spread(SplittableRandom random, boolean wide) {
        if (wide) return (float) Math.scalb(random.nextDouble(-1, 1), -random.nextInt(0, 25));
        return (float) ((random.nextBoolean() ? 1 : -1) * Math.scalb(1 + random.nextDouble(), random.nextInt(0, 15)));
    }

    /**
     * Posits of any width under E8M0 and UE4M3, and any scale for the run-time quantizer, which rounds arithmetically;
     * a posit32 es 2 element (28 bits) times two fxp16_12 scales (14 fraction bits each, 30 together) no longer fits
     * a double, which the products in limbs need.
     */
    @Test
    void positElementsTheDotProductsCannotTakeAreRefused() {
        assertEquals(Optional.empty(), BlockDots.unsupported(format("block[custom[posit]32,32,e8m0,floor]")));
        assertEquals(Optional.empty(), BlockDots.unsupported(format("block[custom[posit_es3]8,32,fxp8_6,nearest,tensor]").withElementRounding("stochastic")));
        assertEquals(Optional.empty(), BlockDots.unsupported(format("block[custom[posit]32,16,ue4m3,nearest,tensor]")));
        assertEquals(Optional.empty(), BlockDots.unsupported(format("block[custom[posit]28,32,ue4m3,floor]")));
        assertEquals(Optional.of("block datatype block[custom[posit]32,16,fxp16_12,nearest]: its posit elements of up to 28 significant bits times two "
                + "scales of 14 fraction bits (fxp16_12) take more than a double's 53, which the block sums need exact; scales of fewer fraction "
                + "bits (ue4m3, e8m0) take posits of any width"),
            BlockDots.unsupported(format("block[custom[posit]32,16,fxp16_12,nearest]")));
    }

    /**
     * A Conv's outputs (stride 1, {@code padH} rows of padding above and below, none at the sides), x [N, C, H, W]
     * and weights [M, C / groups, KH, KW]: at each tap in the window's order, the group's channels in blocks.
     */
    static float[] expectedConv(String name, float[] x, float[] weights, float[] bias, int[] xShape, int groups, int[] wShape, int padH) {
        int batch = xShape[0], channels = xShape[1], h = xShape[2], w = xShape[3], maps = wShape[0], kh = wShape[1], kw = wShape[2];
        int perGroup = channels / groups, mapsPerGroup = maps / groups, oh = h + 2 * padH - kh + 1, ow = w - kw + 1;
        BlockReference reference = reference(name);
        Rational tx = tensorScale(name, x), tw = tensorScale(name, weights);
        float[] expected = new float[batch * maps * oh * ow];
        for (int nb = 0; nb < batch; nb++)
            for (int m = 0; m < maps; m++)
                for (int y = 0; y < oh; y++)
                    for (int xo = 0; xo < ow; xo++) {
                        float acc = 0;
                        for (int ky = 0; ky < kh; ky++) {
                            int iy = y + ky - padH;
                            if (iy < 0 || iy >= h) continue;
                            for (int kx = 0; kx < kw; kx++) {
                                float[] in = new float[perGroup], ws = new float[perGroup];
                                for (int c = 0; c < perGroup; c++) {
                                    in[c] = x[((nb * channels + m / mapsPerGroup * perGroup + c) * h + iy) * w + xo + kx];
                                    ws[c] = weights[((m * perGroup + c) * kh + ky) * kw + kx];
                                }
                                acc = addBlocks(acc, reference, named(name).blockSize(), in, ws, tx, tw);
                            }
                        }
                        float dot = scaled(acc, tx, tw);
                        expected[((nb * maps + m) * oh + y) * ow + xo] = bias == null ? dot : dot + bias[m];
                    }
        return expected;
    }

    /**
     * x . w in blocks: the exact block sums of the reference's elements times both blocks' scales, each rounded to
     * float32, added in float32 from +0, then times both tensor scales as a float32 alpha.
     */
    static float blockDot(BlockReference reference, int size, float[] x, float[] w, Rational tx, Rational tw) {
        return scaled(addBlocks(0f, reference, size, x, w, tx, tw), tx, tw);
    }

    private static float addBlocks(float acc, BlockReference reference, int size, float[] x, float[] w, Rational tx, Rational tw) {
        for (int from = 0; from < x.length; from += size) {
            int to = Math.min(x.length, from + size);
            BlockReference.Block qx = reference.quantize(Arrays.copyOfRange(x, from, to), tx);
            BlockReference.Block qw = reference.quantize(Arrays.copyOfRange(w, from, to), tw);
            if (qx.scale() == null || qw.scale() == null) {
                acc = Float.NaN;
                continue;
            }
            Rational sum = Rational.ZERO;
            for (int j = 0; j < to - from; j++) sum = sum.add(signed(qx, j).multiply(signed(qw, j)));
            acc += toFloat(sum.multiply(qx.scale()).multiply(qw.scale()));
        }
        return acc;
    }

    /** The sum times the float32 product of the tensor scales (1 without them). */
    private static float scaled(float acc, Rational tx, Rational tw) { return acc * toFloat(tx.multiply(tw)); }

    /** The reference's tensor scale of a whole tensor for the format, 1 without one. */
    static Rational tensorScale(String name, float[] tensor) {
        return named(name).tensorScale() ? reference(name).tensorScale(tensor) : Rational.of(1);
    }

    private static Rational signed(BlockReference.Block block, int j) {
        return block.negative()[j] ? block.elements()[j].negate() : block.elements()[j];
    }

    /** The nearest float32 to a rational, ties to even (normal and subnormal; no test value overflows). */
    private static float toFloat(Rational q) {
        if (q.signum() == 0) return 0f;
        Rational magnitude = q.abs();
        int exponent = Math.max(magnitude.floorLog2(), -126);
        BigInteger significand = Rounding.nearestEven(magnitude.multiply(Rational.scaled(BigInteger.ONE, 23 - exponent)));
        float f = Math.scalb(significand.floatValue(), exponent - 23);
        return q.signum() < 0 ? -f : f;
    }

    /** One {@code op} node of graph input X, constant weights W and an optional constant bias B. */
    static Graph node(String op, long[] inputShape, long[] outputShape, Map<String, Attribute> attributes, Tensor weights, Tensor bias) {
        Value x = input("X", inputShape);
        return graph(op, List.of(x), List.of(x, constantValue("W", weights)), bias == null ? null : constantValue("B", bias), outputShape, attributes);
    }

    /** One {@code op} node of two graph inputs, A and B, and an optional constant C. */
    static Graph activations(String op, long[] aShape, long[] bShape, long[] outputShape, Map<String, Attribute> attributes, Tensor c) {
        Value a = input("A", aShape), b = input("B", bShape);
        return graph(op, List.of(a, b), List.of(a, b), c == null ? null : constantValue("C", c), outputShape, attributes);
    }

    private static Graph graph(String op, List<Value> graphInputs, List<Value> inputs, Value optional, long[] outputShape, Map<String, Attribute> attributes) {
        List<Value> all = new java.util.ArrayList<>(inputs);
        if (optional != null) all.add(optional);
        Value y = new Value("Y");
        Node node = new Node("dot", op, "", 13, all, List.of(y), attributes);
        y.setType(Operators.lookup(op).inferTypes(node).getFirst());
        assertEquals(Arrays.toString(outputShape), Arrays.toString(y.type().shape()));
        return new Graph("dot", graphInputs, List.of(y), List.of(node));
    }

    private static Value input(String name, long[] shape) {
        Value v = new Value(name);
        v.setType(new TensorType(ElementType.FLOAT32, shape));
        return v;
    }

    private static Value constantValue(String name, Tensor value) {
        Value v = new Value(name);
        v.setConstant(value);
        return v;
    }

    /** The graph with a Neg node before its dot product, so that the dot product reads a tensor of the workspace. */
    private static Graph negatedFirst(Graph graph) {
        Node dot = graph.nodes().getFirst();
        Value x = graph.inputs().getFirst(), negated = new Value("negated");
        negated.setType(x.type());
        Node neg = new Node("neg", "Neg", "", 13, List.of(x), List.of(negated), Map.of());
        List<Value> inputs = new java.util.ArrayList<>(dot.inputs());
        inputs.set(0, negated);
        Node reading = new Node(dot.name(), dot.opType(), dot.domain(), dot.opsetVersion(), inputs, dot.outputs(), dot.attributes());
        return new Graph(graph.name(), List.of(x), graph.outputs(), List.of(neg, reading));
    }

    static float[] run(Graph graph, String name, long[] shape, float[] input) {
        return run(graph, name, List.of(Tensor.ofFloats(shape, input)));
    }

    static float[] run(Graph graph, String name, List<Tensor> inputs) {
        try (CompiledModule module = Compiler.compile(graph, options(name)); HostModel model = Compiler.jit(module)) {
            return model.run(inputs).getFirst().toFloatArray();
        }
    }

    static float[] seeded(long seed, int count, double scale) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] values = new float[count];
        for (int i = 0; i < count; i++) values[i] = (float) (random.nextDouble(-1, 1) * scale * Math.scalb(1.0, random.nextInt(-3, 4)));
        return values;
    }

    static void assertBits(String name, float[] expected, float[] actual) {
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            if (Float.floatToRawIntBits(expected[i]) != Float.floatToRawIntBits(actual[i])) {
                fail(name + " output " + i + ": " + actual[i] + ", expected " + expected[i]);
            }
        }
    }
}
