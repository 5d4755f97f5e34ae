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

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * MatMul, Gemm and Conv in a block datatype: both operands quantized in blocks along the reduction axis (the
 * constant weights at compile time by {@link BlockFormat#quantize}, the activation when the node runs by
 * {@link ActivationQuantizer}, the same elements and scales), and each output the sum, in float32 from +0 in
 * the order of the blocks, of each block's exact sum of products of elements times both blocks' scales, rounded
 * once to float32 ({@link ExactBlockSum} says why that rounding is exact, scales included), and for formats with
 * tensor scales (NVFP4) that float32 sum times the float32 product of both tensor scales. For Conv the blocks run along the input channels at each tap
 * of the window, taps in the window's order (those in the padding left out, as in Conv's reference nest). A bias
 * (Gemm's C, Conv's B) is added to the result in the vector datatype, outside the dot product.
 */
public final class BlockDots {
    private BlockDots() {}

    /** The kernel of {@code node} in {@code format} when it is a MatMul, Gemm or Conv, else empty (the node computes in the vector datatype). */
    public static Optional<Kernel> lower(Node node, Function<Value, Buffer> bufferOf, BlockFormat format) {
        return switch (node.opType()) {
            case "MatMul", "Gemm", "Conv" -> {
                Optional<String> unsupported = unsupported(format);
                if (unsupported.isPresent()) throw node.error(unsupported.get());
                List<Buffer> inputs = new ArrayList<>();
                for (Value v : node.inputs()) inputs.add(v == null ? null : bufferOf.apply(v));
                KernelBuilder kb = new KernelBuilder(node.name(), node.opType(), inputs, node.outputs().stream().map(bufferOf).toList());
                ExactBlockSum sum = ExactBlockSum.of(format).orElseThrow();
                if (node.opType().equals("Conv")) conv(node, kb, format, sum);
                else matMul(node, kb, format, sum);
                yield Optional.of(kb.build());
            }
            default -> Optional.empty();
        };
    }

    /** Why models cannot compute in {@code format} yet, or empty when they can. */
    public static Optional<String> unsupported(BlockFormat format) {
        String activations = ActivationQuantizer.unsupported(format);
        if (activations != null) return Optional.of("block datatype " + format.name() + ": " + activations);
        if (ExactBlockSum.of(format).isEmpty()) {
            return Optional.of("block datatype " + format.name() + ": its block sums need more than two doubles' 53 bits");
        }
        return Optional.empty();
    }

    /** MatMul (A [..., M, K] times a constant B [K, N]) and Gemm (A [M, K], B [K, N] or transB, alpha = beta = 1, C). */
    private static void matMul(Node node, KernelBuilder kb, BlockFormat format, ExactBlockSum exact) {
        boolean gemm = node.opType().equals("Gemm");
        if (gemm && (node.intAttr("transA", 0) != 0 || node.floatAttr("alpha", 1) != 1 || node.floatAttr("beta", 1) != 1)) {
            throw node.error("block datatype " + format.name() + ": Gemm with transA, alpha or beta other than 1 is not supported yet");
        }
        boolean transB = gemm && node.intAttr("transB", 0) != 0;
        Value weights = constantWeights(node, format);
        long[] b = weights.type().shape();
        if (b.length != 2) throw node.error("block datatype " + format.name() + ": B must be a matrix, not of shape " + Arrays.toString(b));
        long k = transB ? b[1] : b[0], n = transB ? b[0] : b[1];
        long blocks = blocks(format, k);
        float[] values = weights.constant().toFloatArray();
        // The weights as [N, K], each row of K quantized in blocks.
        Quantized w = quantize(format, transB ? values : transpose(values, (int) k, (int) n), (int) n, (int) k, 1);
        Buffer wElements = kb.constant("B.elements", ScalarType.F32, Tensor.ofFloats(new long[] {n, k}, w.elements()));
        Buffer wScales = kb.constant("B.scales", ScalarType.F32, Tensor.ofFloats(new long[] {n, blocks}, w.scales()));
        Buffer a = kb.input(0);
        Buffer y = kb.output(0);
        long rowsOfA = a.size() / k;
        Buffer aElements = kb.scratch("A.elements", ScalarType.F32, a.shape());
        Buffer aScales = kb.scratch("A.scales", ScalarType.F32, new long[] {rowsOfA, blocks});
        Buffer aTensorScale = tensorScaleBuffer(kb, format, "A");
        new ActivationQuantizer(format).emit(kb, a, aElements, aScales, aTensorScale, rowsOfA, k, 1);
        Buffer c = gemm ? kb.input(2) : null;
        kb.loops(new long[] {rowsOfA, n}, at -> {
            Local acc = kb.local("acc", constant(ScalarType.F32, 0));
            addBlockSums(kb, format, exact, k, acc, (block, j) -> product(
                kb.load(aElements, add(mul(at[0], k), j)), kb.load(wElements, add(mul(at[1], k), j))),
                block -> scales(kb.load(aScales, add(mul(at[0], blocks), block)), kb.load(wScales, add(mul(at[1], blocks), block))));
            Expr result = cast(ScalarType.REAL, tensorScaled(kb, kb.get(acc), aTensorScale, w.tensorScale()));
            if (c != null) result = add(result, kb.load(c, flatIndex(c.shape(), broadcastIndices(c.shape(), at))));
            kb.store(y, add(mul(at[0], n), at[1]), result);
        });
    }

    /** Conv (any rank, group 1) with constant W [M, C, K...] and an optional bias. */
    private static void conv(Node node, KernelBuilder kb, BlockFormat format, ExactBlockSum exact) {
        if (node.intAttr("group", 1) != 1) throw node.error("block datatype " + format.name() + ": grouped Conv is not supported yet");
        Value weights = constantWeights(node, format);
        Buffer x = kb.input(0), bias = kb.input(2), y = kb.output(0);
        long[] ws = weights.type().shape();
        long maps = ws[0], channels = ws[1], blocks = blocks(format, channels);
        long[] kernel = Arrays.copyOfRange(ws, 2, ws.length);
        long taps = Arrays.stream(kernel).reduce(1, (p, q) -> p * q);
        long[] spatial = Arrays.copyOfRange(x.shape(), 2, x.rank());
        long plane = Arrays.stream(spatial).reduce(1, (p, q) -> p * q);
        WindowGeometry window = WindowGeometry.of(node, spatial, kernel);
        // Elements as [M, taps, C], each tap's channels contiguous; scales as quantized, [M, blocks, taps].
        Quantized w = quantize(format, weights.constant().toFloatArray(), (int) maps, (int) channels, (int) taps);
        float[] perTap = new float[w.elements().length];
        for (int m = 0; m < maps; m++)
            for (int c = 0; c < channels; c++)
                for (int t = 0; t < taps; t++) perTap[(int) ((m * taps + t) * channels + c)] = w.elements()[(int) ((m * channels + c) * taps + t)];
        Buffer wElements = kb.constant("W.elements", ScalarType.F32, Tensor.ofFloats(new long[] {maps, taps, channels}, perTap));
        Buffer wScales = kb.constant("W.scales", ScalarType.F32, Tensor.ofFloats(new long[] {maps, blocks, taps}, w.scales()));
        Buffer xElements = kb.scratch("X.elements", ScalarType.F32, x.shape());
        Buffer xScales = kb.scratch("X.scales", ScalarType.F32, new long[] {x.dim(0), blocks, plane});
        Buffer xTensorScale = tensorScaleBuffer(kb, format, "X");
        new ActivationQuantizer(format).emit(kb, x, xElements, xScales, xTensorScale, x.dim(0), channels, plane);
        kb.loop(x.dim(0), batch -> kb.loop(maps, map -> kb.loops(window.outputShape(), at -> {
            Local acc = kb.local("acc", constant(ScalarType.F32, 0));
            window.forEachTap(kb, at, (position, tap) -> {
                Expr inputAt = flatIndex(x.shape(), WindowGeometry.indices(batch, idx(0), position));
                Expr positionInPlane = flatIndex(spatial, position);
                Expr tapIndex = flatIndex(kernel, tap);
                addBlockSums(kb, format, exact, channels, acc, (block, c) -> product(
                    kb.load(xElements, add(inputAt, mul(c, plane))),
                    kb.load(wElements, add(mul(add(mul(map, taps), tapIndex), channels), c))),
                    block -> scales(kb.load(xScales, add(mul(add(mul(batch, blocks), block), plane), positionInPlane)),
                        kb.load(wScales, add(mul(add(mul(map, blocks), block), taps), tapIndex))));
            });
            Expr result = cast(ScalarType.REAL, tensorScaled(kb, kb.get(acc), xTensorScale, w.tensorScale()));
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

    private static long blocks(BlockFormat format, long length) { return (length + format.blockSize() - 1) / format.blockSize(); }

    /** The product of the elements at reduction index k (F64). */
    interface Term {
        Expr at(Expr block, Expr k);
    }

    /**
     * Over a reduction of {@code length} in blocks: each block's exact sum of terms times {@code scales} of the
     * block, rounded once to float32 and added to the F32 {@code acc}, block after block.
     */
    private static void addBlockSums(KernelBuilder kb, BlockFormat format, ExactBlockSum exact, long length, Local acc, Term term,
                                     Function<Expr, Expr> scales) {
        long size = format.blockSize();
        kb.loop(blocks(format, length), block -> {
            Expr blockStart = mul(block, size);
            Expr sum = exact.emit(kb, min(idx(size), sub(idx(length), blockStart)), j -> term.at(block, add(blockStart, j)));
            kb.assign(acc, add(kb.get(acc), cast(ScalarType.F32, mul(sum, scales.apply(block)))));
        });
    }

    /** The activation's tensor scale, for a format with one; else null. */
    private static Buffer tensorScaleBuffer(KernelBuilder kb, BlockFormat format, String operand) {
        return format.name().tensorScale() ? kb.scratch(operand + ".tensor.scale", ScalarType.F32, new long[] {1}) : null;
    }

    /**
     * The float32 sum of blocks times both tensor scales, as a GEMM's alpha: their product rounded to float32
     * (exact in double first: 24 + 24 bits), then the product with the sum rounded to float32. Without tensor
     * scales, the sum.
     */
    private static Expr tensorScaled(KernelBuilder kb, Expr sum, Buffer activationScale, double weightScale) {
        if (activationScale == null) return sum;
        Expr alpha = cast(ScalarType.F32, mul(cast(ScalarType.F64, kb.load(activationScale, idx(0))), constant(ScalarType.F64, weightScale)));
        return mul(sum, alpha);
    }

    private static Expr product(Expr a, Expr b) { return mul(cast(ScalarType.F64, a), cast(ScalarType.F64, b)); }

    /** Two blocks' scales multiplied, exactly: each has at most 24 bits (MX's powers of two, NVFP4's UE4M3 4). */
    private static Expr scales(Expr a, Expr b) { return product(a, b); }

    /** C's indices for output [m, n] under broadcasting (C of rank 0, 1 or 2). */
    private static Expr[] broadcastIndices(long[] shape, Expr[] at) {
        Expr[] indices = new Expr[shape.length];
        for (int d = 0; d < shape.length; d++) {
            Expr index = at[at.length - shape.length + d];
            indices[d] = shape[d] == 1 ? idx(0) : index;
        }
        return indices;
    }

    /** A tensor's elements (its layout), its blocks' scales ([outer, blocks, inner]) and its tensor scale (1 without one). */
    record Quantized(float[] elements, float[] scales, double tensorScale) {}

    /**
     * {@code values} seen as [outer, length, inner], quantized in blocks along the middle axis: every element and
     * scale a float32 exactly ({@link ActivationQuantizer} admits such formats only). A block with a NaN scale
     * keeps the quantizer's zero elements; its NaN scale makes its sums NaN.
     */
    static Quantized quantize(BlockFormat format, float[] values, int outer, int length, int inner) {
        double tensorScale = format.tensorScale(values);
        int blocks = (int) blocks(format, length);
        float[] elements = new float[values.length];
        float[] scales = new float[outer * blocks * inner];
        float[] block = new float[format.blockSize()];
        for (int o = 0; o < outer; o++) {
            for (int i = 0; i < inner; i++) {
                for (int b = 0; b < blocks; b++) {
                    int start = b * format.blockSize(), count = Math.min(format.blockSize(), length - start);
                    for (int j = 0; j < count; j++) block[j] = values[(o * length + start + j) * inner + i];
                    QuantizedBlock q = format.quantize(block, 0, count, tensorScale);
                    scales[(o * blocks + b) * inner + i] = (float) q.scale();
                    for (int j = 0; j < count; j++) elements[(o * length + start + j) * inner + i] = (float) q.element(j);
                }
            }
        }
        return new Quantized(elements, scales, tensorScale);
    }

    private static float[] transpose(float[] values, int rows, int columns) {
        float[] t = new float[values.length];
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < columns; c++) t[c * rows + r] = values[r * columns + c];
        return t;
    }
}
