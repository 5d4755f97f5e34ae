package dev.byodt.compiler.block;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeName;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.reference.BlockReference;
import dev.byodt.compiler.dtype.reference.Rational;
import dev.byodt.compiler.dtype.reference.Rounding;
import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.ops.Operators;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigInteger;
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
    private static final int EDGE_ROWS = 11;

    /** A row length that leaves a partial last block of 6. */
    private static final int K = 70;

    private static BlockDatatypeName named(String name) { return DatatypeName.parseBlock(name).orElseThrow(); }

    private static BlockFormat format(String name) { return BlockFormat.resolve(named(name), DatatypeChoice.builtInRegistry()); }

    private static BlockReference reference(String name) { return reference(name, RoundingMode.NEAREST_EVEN); }

    private static BlockReference reference(String name, RoundingMode elementRounding) {
        BlockDatatypeName n = named(name);
        return new BlockReference(BlockReference.BUILT_IN_VALUES.get(n.element().toString()), BlockReference.BUILT_IN_VALUES.get(n.scale().toString()),
            n.rule().optionName(), elementRounding);
    }

    private static CompileOptions options(String name) {
        return CompileOptions.host().withBlock(Optional.of(named(name)));
    }

    // ---- run-time quantization

    @ParameterizedTest
    @ValueSource(strings = {"mxfp8e4m3", "mxfp8e5m2", "mxfp6e3m2", "mxfp6e2m3", "mxfp4", "mxint8", "nvfp4"})
    void activationsQuantizeAsTheExactReference(String name) {
        float[][] rows = rows(name);
        checkQuantization(name, RoundingMode.NEAREST_EVEN, rows);
        // Without the edge rows, whose extremes set NVFP4's tensor scale.
        checkQuantization(name, RoundingMode.NEAREST_EVEN, Arrays.copyOfRange(rows, EDGE_ROWS, rows.length));
    }

    /** The elements in --rounding's other deterministic modes (--rounding reaches them), edge rows and seeded ones. */
    @ParameterizedTest
    @CsvSource({"mxfp8e4m3, up", "mxfp8e4m3, toward-zero", "mxint8, down", "mxint8, nearest-away", "nvfp4, odd", "mxfp6e2m3, down"})
    void activationsQuantizeInTheOtherRoundingModesAsTheExactReference(String name, String mode) {
        checkQuantization(name, RoundingMode.of(mode), rows(name));
    }

    private static void checkQuantization(String name, RoundingMode mode, float[][] rows) {
        float[] flat = new float[rows.length * K];
        for (int r = 0; r < rows.length; r++) System.arraycopy(rows[r], 0, flat, r * K, K);
        BlockFormat format = format(name).withElementRounding(mode.optionName());
        int size = format.blockSize(), blocks = (K + size - 1) / size;
        List<float[]> quantized = quantizeAtRunTime(format, rows.length, flat);
        BlockReference reference = reference(name, mode);
        Rational tensorScale = named(name).tensorScale() ? reference.tensorScale(flat) : Rational.of(1);
        if (named(name).tensorScale()) assertEquals(toFloat(tensorScale), quantized.get(2)[0], name + ": tensor scale");
        for (int r = 0; r < rows.length; r++) {
            for (int b = 0; b < blocks; b++) {
                int from = b * size;
                float[] block = Arrays.copyOfRange(rows[r], from, Math.min(K, from + size));
                BlockReference.Block expected = reference.quantize(block, tensorScale);
                float scale = quantized.get(1)[r * blocks + b];
                float wantedScale = expected.scale() == null ? Float.NaN : toFloat(expected.scale());
                if (!(Float.isNaN(scale) && Float.isNaN(wantedScale)) && scale != wantedScale) {
                    fail(name + " row " + r + " block " + b + ": scale " + scale + ", expected " + wantedScale);
                }
                for (int j = 0; j < block.length && expected.scale() != null; j++) {
                    float actual = quantized.get(0)[r * K + from + j];
                    float wanted = toFloat(signed(expected, j));
                    if (expected.negative()[j]) wanted = -Math.abs(wanted);
                    if (Float.floatToRawIntBits(actual) != Float.floatToRawIntBits(wanted)) {
                        fail(name + " row " + r + " value " + (from + j) + " (" + block[j] + "): element " + actual + ", expected " + wanted);
                    }
                }
            }
        }
    }

    /** Edge rows (zeros of both signs, NaN, infinities, the spec's clipping example, extremes, ties) and 60 seeded ones. */
    private static float[][] rows(String name) {
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

    /** The run-time quantizer's elements, block scales and tensor scale (1 without one) of a [rows, K] tensor. */
    private static List<float[]> quantizeAtRunTime(BlockFormat format, int rows, float[] values) {
        long[] shape = {rows, K};
        long blocks = (K + format.blockSize() - 1) / format.blockSize();
        Buffer in = new Buffer("x", ScalarType.REAL, shape);
        Buffer elementsOut = new Buffer("elements", ScalarType.REAL, shape);
        Buffer scalesOut = new Buffer("scales", ScalarType.REAL, new long[] {rows, blocks});
        Buffer tensorOut = new Buffer("tensor", ScalarType.REAL, new long[] {1});
        KernelBuilder kb = new KernelBuilder("quantize", "BlockQuantize", List.of(in), List.of(elementsOut, scalesOut, tensorOut));
        Buffer elements = kb.scratch("elements", ScalarType.F32, shape);
        Buffer scales = kb.scratch("scales", ScalarType.F32, new long[] {rows, blocks});
        Buffer tensor = kb.scratch("tensor", ScalarType.F32, new long[] {1});
        new ActivationQuantizer(format).emit(kb, in, elements, scales, format.name().tensorScale() ? tensor : null, rows, K, 1);
        if (!format.name().tensorScale()) kb.store(tensor, idx(0), constant(ScalarType.F32, 1));
        for (Buffer[] copy : new Buffer[][] {{elements, elementsOut}, {scales, scalesOut}, {tensor, tensorOut}}) {
            kb.loop(copy[0].size(), i -> kb.store(copy[1], i, cast(ScalarType.REAL, kb.load(copy[0], i))));
        }
        List<Buffer> outputs = List.of(elementsOut, scalesOut, tensorOut);
        Program program = new Program("quantize", List.of(kb.build()), List.of(in), List.of(new TensorSpec("x", ElementType.FLOAT32, shape)),
            outputs, outputs.stream().map(b -> new TensorSpec(b.name(), ElementType.FLOAT32, b.shape())).toList(), new LinkedHashMap<>(), List.of());
        try (CompiledModule module = Compiler.compile(program, CompileOptions.host()); HostModel model = Compiler.jit(module)) {
            return model.run(List.of(Tensor.ofFloats(shape, values))).stream().map(Tensor::toFloatArray).toList();
        }
    }

    // ---- dot products

    @ParameterizedTest
    @ValueSource(strings = {"mxfp8e4m3", "mxfp8e5m2", "mxfp6e3m2", "mxfp6e2m3", "mxfp4", "mxint8", "nvfp4"})
    void matMulSumsExactBlocksInFloat32(String name) {
        int m = 7, n = 5;
        float[] a = seeded(name.hashCode() + 1, 2 * m * K, 4), b = seeded(name.hashCode() + 2, K * n, 1);
        a[3] = -0f;
        Graph graph = node("MatMul", new long[] {2, m, K}, new long[] {2, m, n}, Map.of(), Tensor.ofFloats(new long[] {K, n}, b), null);
        float[] actual = run(graph, name, new long[] {2, m, K}, a);
        BlockReference reference = reference(name);
        float[] expected = new float[2 * m * n];
        for (int row = 0; row < 2 * m; row++) {
            for (int col = 0; col < n; col++) {
                float[] x = Arrays.copyOfRange(a, row * K, row * K + K);
                float[] w = new float[K];
                for (int k = 0; k < K; k++) w[k] = b[k * n + col];
                expected[row * n + col] = blockDot(reference, named(name).blockSize(), x, w, tensorScale(name, a), tensorScale(name, b));
            }
        }
        assertBits(name, expected, actual);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mxfp8e4m3", "mxfp8e5m2", "mxfp6e3m2", "mxfp6e2m3", "mxfp4", "mxint8", "nvfp4"})
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
    @ValueSource(strings = {"mxfp8e4m3", "mxfp8e5m2", "mxfp6e3m2", "mxfp6e2m3", "mxfp4", "mxint8", "nvfp4"})
    void convBlocksRunAlongInputChannels(String name) {
        int batch = 2, channels = 40, maps = 3, h = 5, w = 4, kh = 3, kw = 2;
        int oh = h, ow = w - 1;   // pads 1 top and bottom, none at the sides, stride 1
        float[] x = seeded(name.hashCode() + 6, batch * channels * h * w, 2), weights = seeded(name.hashCode() + 7, maps * channels * kh * kw, 0.5),
            bias = seeded(8, maps, 1);
        Map<String, Attribute> attributes = Map.of("pads", new Attribute.IntsAttr(new long[] {1, 0, 1, 0}));
        Graph graph = node("Conv", new long[] {batch, channels, h, w}, new long[] {batch, maps, oh, ow}, attributes,
            Tensor.ofFloats(new long[] {maps, channels, kh, kw}, weights), Tensor.ofFloats(new long[] {maps}, bias));
        float[] actual = run(graph, name, new long[] {batch, channels, h, w}, x);
        BlockReference reference = reference(name);
        int size = named(name).blockSize();
        float[] expected = new float[batch * maps * oh * ow];
        for (int nb = 0; nb < batch; nb++)
            for (int m = 0; m < maps; m++)
                for (int y = 0; y < oh; y++)
                    for (int xo = 0; xo < ow; xo++) {
                        float acc = 0;
                        for (int ky = 0; ky < kh; ky++) {
                            int iy = y + ky - 1;
                            if (iy < 0 || iy >= h) continue;
                            for (int kx = 0; kx < kw; kx++) {
                                int ix = xo + kx;
                                float[] in = new float[channels], ws = new float[channels];
                                for (int c = 0; c < channels; c++) {
                                    in[c] = x[((nb * channels + c) * h + iy) * w + ix];
                                    ws[c] = weights[((m * channels + c) * kh + ky) * kw + kx];
                                }
                                acc = addBlocks(acc, reference, size, in, ws, tensorScale(name, x), tensorScale(name, weights));
                            }
                        }
                        expected[((nb * maps + m) * oh + y) * ow + xo] = scaled(acc, tensorScale(name, x), tensorScale(name, weights)) + bias[m];
                    }
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
        for (int i = 0; i < expected.length; i++) {
            int bits = Float.floatToRawIntBits(inFloat32[i]);
            expected[i] = Float.intBitsToFloat((bits + 0x7FFF + ((bits >>> 16) & 1)) & 0xFFFF0000);
        }
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

    @Test
    void formatsWhoseBlockSumsOutgrowTwoDoublesAreRefused() {
        BlockFormat wide = BlockFormat.resolve(named("block[bfloat16,32,e8m0,floor]"), DatatypeChoice.builtInRegistry());
        assertEquals(Optional.of("block datatype block[bfloat16,32,custom[e8m0]8,floor]: its block sums need more than two doubles' 53 bits"),
            BlockDots.unsupported(wide));
    }

    /**
     * x . w in blocks: the exact block sums of the reference's elements times both blocks' scales, each rounded to
     * float32, added in float32 from +0, then times both tensor scales as a float32 alpha.
     */
    private static float blockDot(BlockReference reference, int size, float[] x, float[] w, Rational tx, Rational tw) {
        return scaled(addBlocks(0f, reference, size, x, w, tx, tw), tx, tw);
    }

    private static float addBlocks(float acc, BlockReference reference, int size, float[] x, float[] w, Rational tx, Rational tw) {
        for (int from = 0; from < x.length; from += size) {
            int to = Math.min(x.length, from + size);
            BlockReference.Block qx = reference.quantize(Arrays.copyOfRange(x, from, to), tx);
            BlockReference.Block qw = reference.quantize(Arrays.copyOfRange(w, from, to), tw);
            Rational sum = Rational.ZERO;
            for (int j = 0; j < to - from; j++) sum = sum.add(signed(qx, j).multiply(signed(qw, j)));
            acc += toFloat(sum.multiply(qx.scale()).multiply(qw.scale()));
        }
        return acc;
    }

    /** The sum times the float32 product of the tensor scales (1 without them). */
    private static float scaled(float acc, Rational tx, Rational tw) { return acc * toFloat(tx.multiply(tw)); }

    /** The reference's tensor scale of a whole tensor for the format, 1 without one. */
    private static Rational tensorScale(String name, float[] tensor) {
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

    private static Graph node(String op, long[] inputShape, long[] outputShape, Map<String, Attribute> attributes, Tensor weights, Tensor bias) {
        Value x = new Value("X"), w = new Value("W"), y = new Value("Y");
        x.setType(new TensorType(ElementType.FLOAT32, inputShape));
        w.setConstant(weights);
        List<Value> inputs = new java.util.ArrayList<>(List.of(x, w));
        if (bias != null) {
            Value b = new Value("B");
            b.setConstant(bias);
            inputs.add(b);
        }
        Node node = new Node("dot", op, "", 13, inputs, List.of(y), attributes);
        y.setType(Operators.lookup(op).inferTypes(node).getFirst());
        assertEquals(Arrays.toString(outputShape), Arrays.toString(y.type().shape()));
        return new Graph("dot", List.of(x), List.of(y), List.of(node));
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

    private static float[] run(Graph graph, String name, long[] shape, float[] input) {
        try (CompiledModule module = Compiler.compile(graph, options(name)); HostModel model = Compiler.jit(module)) {
            return model.run(List.of(Tensor.ofFloats(shape, input))).getFirst().toFloatArray();
        }
    }

    private static float[] seeded(long seed, int count, double scale) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] values = new float[count];
        for (int i = 0; i < count; i++) values[i] = (float) (random.nextDouble(-1, 1) * scale * Math.scalb(1.0, random.nextInt(-3, 4)));
        return values;
    }

    private static void assertBits(String name, float[] expected, float[] actual) {
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            if (Float.floatToRawIntBits(expected[i]) != Float.floatToRawIntBits(actual[i])) {
                fail(name + " output " + i + ": " + actual[i] + ", expected " + expected[i]);
            }
        }
    }
}
