package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.Random;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static dev.byodt.compiler.ops.ShapeIndexing.count;
import static dev.byodt.compiler.ops.ShapeIndexing.unflatten;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv on seeded random shapes and values (broadcast batches,
 * padding, strides, dilations, groups, per-row, per-column and per-channel zero points and scales, int8 and uint8)
 * against references written the other way round: each output an exact BigInteger sum over its whole window,
 * padding included as taps holding the zero point (ONNX's definition), and the requantization computed in exact
 * decimals from the float32 values ONNX Runtime rounds to (the multiplier, the sum as a float, their product).
 * Each case runs in the interpreter and compiled.
 */
class QuantizedProductsTest {
    private static final int CASES = 12;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void matMulIntegerIsTheExactSumOfProductsOfDifferences(boolean compiled) {
        Random random = new Random(1310);
        for (int c = 0; c < CASES; c++) {
            MatMulCase m = MatMulCase.random(random);
            Tensor y = m.node("MatMulInteger", 10, false).run(executor(compiled)).getFirst();
            assertArrayEquals(m.sums(), y.toLongArray(), "MatMulInteger case " + c + ": " + m);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void qLinearMatMulRequantizesTheExactSumInFloat32(boolean compiled) {
        Random random = new Random(1311);
        for (int c = 0; c < CASES; c++) {
            MatMulCase m = MatMulCase.random(random);
            Tensor y = m.node("QLinearMatMul", 10, true).run(executor(compiled)).getFirst();
            long[] sums = m.sums();
            long[] expected = new long[sums.length];
            for (int e = 0; e < sums.length; e++) {
                int row = (int) (e / m.n % m.m);
                int column = (int) (e % m.n);
                expected[e] = requantized(sums[e], m.aScale[row % m.aScale.length], m.bScale[column % m.bScale.length],
                    m.yScale, m.yZero, m.yType);
            }
            assertArrayEquals(expected, y.toLongArray(), "QLinearMatMul case " + c + ": " + m);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void convIntegerIsTheExactSumOverTheZeroPaddedWindow(boolean compiled) {
        Random random = new Random(1312);
        for (int c = 0; c < CASES; c++) {
            ConvCase v = ConvCase.random(random);
            Tensor y = v.node("ConvInteger", 10, false).run(executor(compiled)).getFirst();
            assertArrayEquals(v.sums(false), y.toLongArray(), "ConvInteger case " + c + ": " + v);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void qLinearConvAddsTheBiasAndRequantizesPerChannelInFloat32(boolean compiled) {
        Random random = new Random(1313);
        for (int c = 0; c < CASES; c++) {
            ConvCase v = ConvCase.random(random);
            Tensor y = v.node("QLinearConv", 10, true).run(executor(compiled)).getFirst();
            long[] sums = v.sums(true);
            long[] expected = new long[sums.length];
            long perMap = sums.length / v.batch / v.maps;
            for (int e = 0; e < sums.length; e++) {
                int map = (int) (e / perMap % v.maps);
                expected[e] = requantized(sums[e], v.xScale, v.wScale[map % v.wScale.length], v.yScale, v.yZero, v.yType);
            }
            assertArrayEquals(expected, y.toLongArray(), "QLinearConv case " + c + ": " + v);
        }
    }

    private static GraphExecutor executor(boolean compiled) {
        return compiled ? GraphExecutor.compiled(CompileOptions.host()) : GraphInterpreter::run;
    }

    /**
     * saturate(roundHalfEven(float(sum) * multiplier) + zeroPoint), the multiplier fl(fl(aScale * bScale) / yScale)
     * and the product rounded to float32 as ONNX Runtime computes them, the rounding to an integer exact.
     */
    private static long requantized(long sum, float aScale, float bScale, float yScale, long zeroPoint, ElementType type) {
        float scales = float32(exact(aScale).multiply(exact(bScale)));
        // 34 digits leave the quotient far closer to itself than to any float32 tie it is not exactly on.
        float multiplier = float32(exact(scales).divide(exact(yScale), MathContext.DECIMAL128));
        float product = float32(exact(float32(new BigDecimal(sum))).multiply(exact(multiplier)));
        long rounded = exact(product).setScale(0, RoundingMode.HALF_EVEN).longValueExact() + zeroPoint;
        return Math.max(lowest(type), Math.min(highest(type), rounded));
    }

    private static BigDecimal exact(float v) { return new BigDecimal(v); }

    /** The float32 nearest to an exact value (BigDecimal.floatValue rounds to nearest, ties to even). */
    private static float float32(BigDecimal v) { return v.floatValue(); }

    private static long lowest(ElementType type) { return type == ElementType.UINT8 ? 0 : -128; }

    private static long highest(ElementType type) { return type == ElementType.UINT8 ? 255 : 127; }

    private static ElementType eightBit(Random random) { return random.nextBoolean() ? ElementType.UINT8 : ElementType.INT8; }

    private static long[] values(Random random, ElementType type, long count) {
        long[] v = new long[(int) count];
        for (int i = 0; i < v.length; i++) v[i] = lowest(type) + random.nextInt(256);
        return v;
    }

    private static Tensor typed(ElementType type, long[] shape, long[] values) {
        return longs(shape, values).convertedTo(type);
    }

    private static float[] scales(Random random, int count) {
        float[] s = new float[count];
        for (int i = 0; i < count; i++) s[i] = (float) (0.0005 + random.nextDouble() * 0.02);
        return s;
    }

    /** A random stack of products: A [aBatch.., M, K] (or [K]), B [bBatch.., K, N], their zero points and scales. */
    private record MatMulCase(long[] aShape, long[] aBatch, long[] bShape, long[] bBatch, long[] batch, long m, long k, long n,
                              ElementType aType, long[] a, long[] aZero, ElementType bType, long[] b, long[] bZero,
                              float[] aScale, float[] bScale, float yScale, long yZero, ElementType yType) {
        static MatMulCase random(Random random) {
            long m = 1 + random.nextInt(4);
            long k = 1 + random.nextInt(9);
            long n = 1 + random.nextInt(5);
            boolean vectorA = random.nextInt(4) == 0;
            if (vectorA) m = 1;
            long[] aBatch = vectorA ? new long[0] : random.nextBoolean() ? new long[] {2, 1} : new long[0];
            long[] bBatch = random.nextBoolean() ? new long[] {3} : new long[0];
            long[] batch = aBatch.length == 2 ? new long[] {2, bBatch.length == 1 ? 3 : 1} : bBatch.clone();
            long[] aShape = vectorA ? new long[] {k} : concat(aBatch, m, k);
            long[] bShape = concat(bBatch, k, n);
            ElementType aType = eightBit(random);
            ElementType bType = eightBit(random);
            ElementType yType = eightBit(random);
            int aParameters = random.nextBoolean() ? (int) m : 1;
            int bParameters = random.nextBoolean() ? (int) n : 1;
            return new MatMulCase(aShape, aBatch, bShape, bBatch, batch, m, k, n,
                aType, values(random, aType, count(aShape)), values(random, aType, aParameters),
                bType, values(random, bType, count(bShape)), values(random, bType, bParameters),
                scales(random, aParameters), scales(random, bParameters), 0.05f + random.nextFloat(),
                values(random, yType, 1)[0], yType);
        }

        /** The node with A and B fed at run time; QLinearMatMul's scales and zero points interleaved as it orders them. */
        NodeCase node(String opType, int opset, boolean quantizedOutput) {
            NodeCase node = new NodeCase(opType, opset).input(typed(aType, aShape, a));
            if (quantizedOutput) node.constant(floats(aScale)).constant(parameter(aType, aZero));
            else node.input(typed(bType, bShape, b));
            if (quantizedOutput) {
                node.input(typed(bType, bShape, b)).constant(floats(bScale)).constant(parameter(bType, bZero))
                    .constant(Tensor.ofFloats(new long[0], new float[] {yScale})).constant(typed(yType, new long[0], new long[] {yZero}));
            } else {
                node.constant(parameter(aType, aZero)).constant(parameter(bType, bZero));
            }
            return node;
        }

        /** Per output, in row-major order of [batch.., M, N], the exact sum over k. */
        long[] sums() {
            long matrices = count(batch);
            long[] out = new long[(int) (matrices * m * n)];
            for (long p = 0; p < matrices; p++) {
                long aMatrix = broadcastIndex(batch, aBatch, p);
                long bMatrix = broadcastIndex(batch, bBatch, p);
                for (int i = 0; i < m; i++) {
                    for (int j = 0; j < n; j++) {
                        BigInteger sum = BigInteger.ZERO;
                        for (int kk = 0; kk < k; kk++) {
                            long x = a[(int) (aMatrix * m * k + i * k + kk)] - aZero[i % aZero.length];
                            long w = b[(int) (bMatrix * k * n + kk * n + j)] - bZero[j % bZero.length];
                            sum = sum.add(BigInteger.valueOf(x).multiply(BigInteger.valueOf(w)));
                        }
                        out[(int) ((p * m + i) * n + j)] = sum.intValueExact();
                    }
                }
            }
            return out;
        }

        @Override
        public String toString() {
            return "A " + Arrays.toString(aShape) + " " + aType + " zero points " + aZero.length + ", B " + Arrays.toString(bShape)
                + " " + bType + " zero points " + bZero.length + ", y " + yType;
        }
    }

    /** The flat index, in an operand's batch shape (right-aligned, size-1 dimensions broadcast), of output batch p. */
    private static long broadcastIndex(long[] batch, long[] operand, long p) {
        long index = 0;
        long stride = 1;
        long rest = p;
        for (int d = batch.length - 1; d >= 0; d--) {
            long position = rest % batch[d];
            rest /= batch[d];
            int od = d - (batch.length - operand.length);
            if (od < 0) continue;
            if (operand[od] != 1) index += position * stride;
            stride *= operand[od];
        }
        return index;
    }

    /** A random grouped, strided, dilated, padded 1-D or 2-D convolution with its zero points, scales and bias. */
    private record ConvCase(long batch, long channels, long maps, long groups, long[] spatial, long[] kernel, long[] strides,
                            long[] dilations, long[] pads, ElementType xType, long[] x, long xZero, ElementType wType,
                            long[] w, long[] wZero, long[] bias, float xScale, float[] wScale, float yScale, long yZero,
                            ElementType yType) {
        static ConvCase random(Random random) {
            int rank = 1 + random.nextInt(2);
            long groups = 1 + random.nextInt(2);
            long channels = groups * (1 + random.nextInt(2));
            long maps = groups * (1 + random.nextInt(3));
            long batch = 1 + random.nextInt(2);
            long[] spatial = new long[rank];
            long[] kernel = new long[rank];
            long[] strides = new long[rank];
            long[] dilations = new long[rank];
            long[] pads = new long[2 * rank];
            for (int d = 0; d < rank; d++) {
                kernel[d] = 1 + random.nextInt(3);
                dilations[d] = 1 + random.nextInt(2);
                strides[d] = 1 + random.nextInt(2);
                pads[d] = random.nextInt(3);
                pads[rank + d] = random.nextInt(3);
                spatial[d] = (kernel[d] - 1) * dilations[d] + 1 + random.nextInt(4);
            }
            ElementType xType = eightBit(random);
            ElementType wType = eightBit(random);
            ElementType yType = eightBit(random);
            int wParameters = random.nextBoolean() ? (int) maps : 1;
            long[] weightShape = concat(new long[] {maps, channels / groups}, kernel);
            long[] bias = new long[(int) maps];
            for (int i = 0; i < maps; i++) bias[i] = random.nextInt(20001) - 10000;
            return new ConvCase(batch, channels, maps, groups, spatial, kernel, strides, dilations, pads,
                xType, values(random, xType, batch * channels * count(spatial)), values(random, xType, 1)[0],
                wType, values(random, wType, count(weightShape)), values(random, wType, wParameters), bias,
                scales(random, 1)[0], scales(random, wParameters), 0.05f + random.nextFloat(), values(random, yType, 1)[0], yType);
        }

        long[] xShape() { return concat(new long[] {batch, channels}, spatial); }

        long[] wShape() { return concat(new long[] {maps, channels / groups}, kernel); }

        NodeCase node(String opType, int opset, boolean quantizedOutput) {
            NodeCase node = new NodeCase(opType, opset).attr("group", groups).attr("strides", strides)
                .attr("dilations", dilations).attr("pads", pads).input(typed(xType, xShape(), x));
            Tensor xZeroPoint = typed(xType, new long[0], new long[] {xZero});
            if (!quantizedOutput) {
                return node.input(typed(wType, wShape(), w)).constant(xZeroPoint).constant(parameter(wType, wZero));
            }
            return node.constant(Tensor.ofFloats(new long[0], new float[] {xScale})).constant(xZeroPoint)
                .input(typed(wType, wShape(), w)).constant(floats(wScale)).constant(parameter(wType, wZero))
                .constant(Tensor.ofFloats(new long[0], new float[] {yScale})).constant(typed(yType, new long[0], new long[] {yZero}))
                .constant(typed(ElementType.INT32, new long[] {maps}, bias));
        }

        /**
         * Per output, in row-major order of [batch, maps, out..], the exact sum over the whole window of the
         * zero-padded input (padding taps hold x's zero point), plus the bias when asked.
         */
        long[] sums(boolean withBias) {
            int rank = spatial.length;
            long[] out = new long[rank];
            for (int d = 0; d < rank; d++) {
                out[d] = (spatial[d] + pads[d] + pads[rank + d] - ((kernel[d] - 1) * dilations[d] + 1)) / strides[d] + 1;
            }
            long positions = count(out);
            long taps = count(kernel);
            long perGroup = channels / groups;
            long mapsPerGroup = maps / groups;
            long[] sums = new long[(int) (batch * maps * positions)];
            for (int nb = 0; nb < batch; nb++) {
                for (int map = 0; map < maps; map++) {
                    long group = map / mapsPerGroup;
                    for (long p = 0; p < positions; p++) {
                        long[] at = unflatten(out, p);
                        BigInteger sum = withBias ? BigInteger.valueOf(bias[map]) : BigInteger.ZERO;
                        for (long cg = 0; cg < perGroup; cg++) {
                            long channel = group * perGroup + cg;
                            for (long t = 0; t < taps; t++) {
                                long[] tap = unflatten(kernel, t);
                                long value = xZero;
                                long flat = nb * channels + channel;
                                boolean inside = true;
                                for (int d = 0; d < rank; d++) {
                                    long position = at[d] * strides[d] - pads[d] + tap[d] * dilations[d];
                                    inside &= position >= 0 && position < spatial[d];
                                    flat = flat * spatial[d] + position;
                                }
                                if (inside) value = x[(int) flat];
                                long weight = w[(int) ((map * perGroup + cg) * taps + t)];
                                sum = sum.add(BigInteger.valueOf(value - xZero).multiply(BigInteger.valueOf(weight - wZero[map % wZero.length])));
                            }
                        }
                        sums[(int) ((nb * maps + map) * positions + p)] = sum.intValueExact();
                    }
                }
            }
            return sums;
        }

        @Override
        public String toString() {
            return "x " + Arrays.toString(xShape()) + " " + xType + ", w " + Arrays.toString(wShape()) + " " + wType + " zero points "
                + wZero.length + ", group " + groups + ", strides " + Arrays.toString(strides) + ", dilations "
                + Arrays.toString(dilations) + ", pads " + Arrays.toString(pads) + ", y " + yType;
        }
    }

    /** A zero point: a scalar for one value, else a 1-D tensor of one per slice. */
    private static Tensor parameter(ElementType type, long[] values) {
        return typed(type, values.length == 1 ? new long[0] : new long[] {values.length}, values);
    }

    private static long[] concat(long[] head, long... tail) {
        long[] all = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }
}
