package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.QuantizedBlock;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.ops.WindowGeometry;
import dev.byodt.runtime.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * MatMul, Gemm and Conv in a block datatype: both operands quantized in blocks along the reduction axis (the
 * constant weights at compile time by {@link BlockFormat#quantize}, the activation when the node runs by
 * {@link ActivationQuantizer}, the same values), and each output the sum, in float32 from +0 in the order of
 * the blocks, of each block's exact sum of products rounded once to float32. For Conv the blocks run along the
 * input channels at each tap of the window, taps in the order of the window (those in the padding left out, as
 * in Conv's reference nest), so an activation is quantized once for every tap that reads it. A bias (Gemm's C,
 * Conv's B) is added to the result in the vector datatype, outside the dot product.
 * <p>
 * Why a double holds each block's sum exactly: every value is element * X, X the block's power-of-two scale,
 * so a block's products are X_a X_b e_a e_b, and e_a e_b is a multiple of 2^(2 smallestExponent) below
 * 2^(2 emax + 2). n of them need log2(n) + 2 emax + 2 - 2 smallestExponent bits: with blocks of 32, FP8 E4M3
 * 5 + 16 + 2 + 18 = 41, FP6 E3M2 23, FP6 E2M3 17, FP4 13, INT8 (fxp8_6) 19, all within double's 53 (each
 * product of two float32s is exact too); the power-of-two X_a X_b only moves the exponent, far inside
 * double's range. FP8 E5M2 needs 5 + 30 + 2 + 32 = 69 bits, so {@link #exactInDouble} refuses it.
 */
public final class BlockDots {
    private BlockDots() {}

    /** The kernel of {@code node} in {@code format} when it is a MatMul, Gemm or Conv, else empty (the node computes in the vector datatype). */
    public static Optional<Kernel> lower(Node node, Function<Value, Buffer> bufferOf, BlockFormat format) {
        Supplier<KernelBuilder> builder = () -> {
            List<Buffer> inputs = new ArrayList<>();
            for (Value v : node.inputs()) inputs.add(v == null ? null : bufferOf.apply(v));
            return new KernelBuilder(node.name(), node.opType(), inputs, node.outputs().stream().map(bufferOf).toList());
        };
        return switch (node.opType()) {
            case "MatMul", "Gemm", "Conv" -> {
                Optional<String> unsupported = unsupported(format);
                if (unsupported.isPresent()) throw node.error(unsupported.get());
                KernelBuilder kb = builder.get();
                if (node.opType().equals("Conv")) conv(node, kb, format);
                else matMul(node, kb, format);
                yield Optional.of(kb.build());
            }
            default -> Optional.empty();
        };
    }

    /** Why models cannot compute in {@code format} yet, or empty when they can. */
    public static Optional<String> unsupported(BlockFormat format) {
        String activations = ActivationQuantizer.unsupported(format);
        if (activations != null) return Optional.of("block datatype " + format.name() + ": " + activations);
        if (!exactInDouble(format)) {
            return Optional.of("block datatype " + format.name() + ": its block sums need more than a double's 53 bits,"
                + " and the exact path for them is not built yet");
        }
        return Optional.empty();
    }

    /** Whether a block's sum of products is exact in double (see the class comment). */
    static boolean exactInDouble(BlockFormat format) {
        int termBits = 2 * format.element().maxExponent() + 2 - 2 * format.element().smallestExponent();
        int countBits = 64 - Long.numberOfLeadingZeros(format.blockSize() - 1L);
        return termBits + countBits <= 53 && format.element().fractionBits() <= 23;
    }

    /** MatMul (A [..., M, K] times a constant B [K, N]) and Gemm (A [M, K], B [K, N] or transB, alpha = beta = 1, C). */
    private static void matMul(Node node, KernelBuilder kb, BlockFormat format) {
        boolean gemm = node.opType().equals("Gemm");
        if (gemm && (node.intAttr("transA", 0) != 0 || node.floatAttr("alpha", 1) != 1 || node.floatAttr("beta", 1) != 1)) {
            throw node.error("block datatype " + format.name() + ": Gemm with transA, alpha or beta other than 1 is not supported yet");
        }
        boolean transB = gemm && node.intAttr("transB", 0) != 0;
        Value weights = constantWeights(node, format);
        long[] b = weights.type().shape();
        if (b.length != 2) throw node.error("block datatype " + format.name() + ": B must be a matrix, not of shape " + Arrays.toString(b));
        long k = transB ? b[1] : b[0], n = transB ? b[0] : b[1];
        float[] values = weights.constant().toFloatArray();
        // The weights as [N, K], each row of K quantized in blocks.
        float[] rows = transB ? values : transpose(values, (int) k, (int) n);
        Buffer w = kb.constant("B.blocks", ScalarType.F32, Tensor.ofFloats(new long[] {n, k}, dequantized(format, rows, (int) n, (int) k, 1)));
        Buffer a = kb.input(0);
        Buffer y = kb.output(0);
        long rowsOfA = a.size() / k;
        Buffer qa = kb.scratch("A.blocks", ScalarType.F32, a.shape());
        new ActivationQuantizer(format).emit(kb, a, qa, rowsOfA, k, 1);
        Buffer c = gemm ? kb.input(2) : null;
        kb.loops(new long[] {rowsOfA, n}, at -> {
            Local acc = kb.local("acc", constant(ScalarType.F32, 0));
            addBlockSums(kb, format, k, acc, (blockStart, j) ->
                product(kb.load(qa, add(mul(at[0], k), add(blockStart, j))), kb.load(w, add(mul(at[1], k), add(blockStart, j)))));
            Expr result = cast(ScalarType.REAL, kb.get(acc));
            if (c != null) result = add(result, kb.load(c, flatIndex(c.shape(), broadcastIndices(c.shape(), at))));
            kb.store(y, add(mul(at[0], n), at[1]), result);
        });
    }

    /** Conv (2-d or any rank, group 1) with constant W [M, C, K...] and an optional bias. */
    private static void conv(Node node, KernelBuilder kb, BlockFormat format) {
        if (node.intAttr("group", 1) != 1) throw node.error("block datatype " + format.name() + ": grouped Conv is not supported yet");
        Value weights = constantWeights(node, format);
        Buffer x = kb.input(0), bias = kb.input(2), y = kb.output(0);
        long[] ws = weights.type().shape();
        long maps = ws[0], channels = ws[1];
        long[] kernel = Arrays.copyOfRange(ws, 2, ws.length);
        long taps = Arrays.stream(kernel).reduce(1, (p, q) -> p * q);
        long[] spatial = Arrays.copyOfRange(x.shape(), 2, x.rank());
        long plane = Arrays.stream(spatial).reduce(1, (p, q) -> p * q);
        WindowGeometry window = WindowGeometry.of(node, spatial, kernel);
        // The weights as [M, taps, C]: each tap's channels quantized in blocks, contiguous.
        float[] values = weights.constant().toFloatArray();
        float[] quantized = dequantized(format, values, (int) maps, (int) channels, (int) taps);
        float[] perTap = new float[values.length];
        for (int m = 0; m < maps; m++)
            for (int c = 0; c < channels; c++)
                for (int t = 0; t < taps; t++) perTap[(int) ((m * taps + t) * channels + c)] = quantized[(int) ((m * channels + c) * taps + t)];
        Buffer w = kb.constant("W.blocks", ScalarType.F32, Tensor.ofFloats(new long[] {maps, taps, channels}, perTap));
        Buffer qx = kb.scratch("X.blocks", ScalarType.F32, x.shape());
        new ActivationQuantizer(format).emit(kb, x, qx, x.dim(0), channels, plane);
        kb.loop(x.dim(0), batch -> kb.loop(maps, map -> kb.loops(window.outputShape(), at -> {
            Local acc = kb.local("acc", constant(ScalarType.F32, 0));
            window.forEachTap(kb, at, (position, tap) -> {
                Expr inputAt = flatIndex(x.shape(), WindowGeometry.indices(batch, idx(0), position));
                Expr tapIndex = flatIndex(kernel, tap);
                addBlockSums(kb, format, channels, acc, (blockStart, j) -> product(
                    kb.load(qx, add(inputAt, mul(add(blockStart, j), plane))),
                    kb.load(w, add(mul(add(mul(map, taps), tapIndex), channels), add(blockStart, j)))));
            });
            Expr result = cast(ScalarType.REAL, kb.get(acc));
            if (bias != null) result = add(result, kb.load(bias, map));
            kb.store(y, flatIndex(y.shape(), WindowGeometry.indices(batch, map, at)), result);
        })));
    }

    /** The weights operand: a constant, the only kind quantized at compile time for now. */
    private static Value constantWeights(Node node, BlockFormat format) {
        Value weights = node.input(1);
        if (!weights.isConstant()) {
            throw node.error("block datatype " + format.name() + ": the second operand '" + weights.name()
                + "' is not a constant; dot products of two activations are not supported yet");
        }
        return weights;
    }

    interface Term {
        Expr at(Expr blockStart, Expr j);
    }

    /**
     * Over a reduction of {@code length} in blocks: each block's terms summed in a double (exact, see the class
     * comment), rounded once to float32 and added to the F32 {@code acc}, block after block.
     */
    private static void addBlockSums(KernelBuilder kb, BlockFormat format, long length, Local acc, Term term) {
        long size = format.blockSize();
        kb.loop((length + size - 1) / size, block -> {
            Expr blockStart = mul(block, size);
            Local sum = kb.local("block", constant(ScalarType.F64, 0));
            kb.loop(min(idx(size), sub(idx(length), blockStart)), j -> kb.assign(sum, add(kb.get(sum), term.at(blockStart, j))));
            kb.assign(acc, add(kb.get(acc), cast(ScalarType.F32, kb.get(sum))));
        });
    }

    private static Expr product(Expr a, Expr b) { return mul(cast(ScalarType.F64, a), cast(ScalarType.F64, b)); }

    /** C's indices for output [m, n] under broadcasting (C of rank 0, 1 or 2). */
    private static Expr[] broadcastIndices(long[] shape, Expr[] at) {
        Expr[] indices = new Expr[shape.length];
        for (int d = 0; d < shape.length; d++) {
            Expr index = at[at.length - shape.length + d];
            indices[d] = shape[d] == 1 ? idx(0) : index;
        }
        return indices;
    }

    /**
     * {@code values} seen as [outer, length, inner], quantized in blocks along the middle axis, each value the
     * float32 element * scale * tensor scale (exact: {@link ActivationQuantizer} admits such formats only).
     */
    static float[] dequantized(BlockFormat format, float[] values, int outer, int length, int inner) {
        double tensorScale = format.tensorScale(values);
        float[] result = new float[values.length];
        float[] block = new float[format.blockSize()];
        for (int o = 0; o < outer; o++) {
            for (int i = 0; i < inner; i++) {
                for (int start = 0; start < length; start += format.blockSize()) {
                    int count = Math.min(format.blockSize(), length - start);
                    for (int j = 0; j < count; j++) block[j] = values[(o * length + start + j) * inner + i];
                    QuantizedBlock q = format.quantize(block, 0, count, tensorScale);
                    for (int j = 0; j < count; j++) result[(o * length + start + j) * inner + i] = (float) q.value(j);
                }
            }
        }
        return result;
    }

    private static float[] transpose(float[] values, int rows, int columns) {
        float[] t = new float[values.length];
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < columns; c++) t[c * rows + r] = values[r * columns + c];
        return t;
    }
}
