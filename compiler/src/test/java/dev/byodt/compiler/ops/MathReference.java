package dev.byodt.compiler.ops;

import dev.byodt.runtime.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import java.util.function.ToDoubleFunction;

/**
 * The math operators as their ONNX specifications state them, in double and written apart from byodt's loop
 * nests (Java's log1p, the elements of each reduction gathered into an array first), for the tests to
 * compare against.
 */
final class MathReference {
    private MathReference() {}

    static double softplus(double x) { return Math.log1p(Math.exp(x)); }

    static double softsign(double x) { return x / (1 + Math.abs(x)); }

    static double mish(double x) { return x * Math.tanh(softplus(x)); }

    static double celu(double x, double alpha) { return Math.max(0, x) + Math.min(0, alpha * (Math.exp(x / alpha) - 1)); }

    static double thresholdedRelu(double x, double alpha) { return x > alpha ? x : 0; }

    /** The reductions on the elements of one output, in the order they appear in the input. */
    enum Reduction {
        MIN(e -> Arrays.stream(e).min().orElse(Double.POSITIVE_INFINITY)),
        PROD(e -> Arrays.stream(e).reduce(1, (a, b) -> a * b)),
        L1(e -> Arrays.stream(e).map(Math::abs).sum()),
        L2(e -> Math.sqrt(Arrays.stream(e).map(v -> v * v).sum())),
        LOG_SUM_EXP(e -> Math.log(Arrays.stream(e).map(Math::exp).sum())),
        SUM_SQUARE(e -> Arrays.stream(e).map(v -> v * v).sum());

        final ToDoubleFunction<double[]> ofElements;

        Reduction(ToDoubleFunction<double[]> ofElements) {
            this.ofElements = ofElements;
        }

        String opType() {
            return switch (this) {
                case MIN -> "ReduceMin";
                case PROD -> "ReduceProd";
                case L1 -> "ReduceL1";
                case L2 -> "ReduceL2";
                case LOG_SUM_EXP -> "ReduceLogSumExp";
                case SUM_SQUARE -> "ReduceSumSquare";
            };
        }

        /** The reduction of x over the given axes (each in [0, rank)), in the flat order of the result. */
        double[] over(Tensor x, int... axes) {
            long[] shape = x.shape();
            boolean[] reduced = new boolean[shape.length];
            for (int a : axes) reduced[a] = true;
            // Each input element goes to the output whose index is its own with the reduced axes set to 0.
            List<List<Double>> groups = new ArrayList<>();
            long[] outStrides = new long[shape.length];
            long outSize = 1;
            for (int d = shape.length - 1; d >= 0; d--) {
                outStrides[d] = reduced[d] ? 0 : outSize;
                if (!reduced[d]) outSize *= shape[d];
            }
            for (long o = 0; o < outSize; o++) groups.add(new ArrayList<>());
            long[] at = new long[shape.length];
            for (long i = 0; i < x.elementCount(); i++) {
                long rest = i, out = 0;
                for (int d = shape.length - 1; d >= 0; d--) {
                    at[d] = rest % shape[d];
                    rest /= shape[d];
                    out += at[d] * outStrides[d];
                }
                groups.get((int) out).add((double) x.getFloat(i));
            }
            return groups.stream().mapToDouble(g -> ofElements.applyAsDouble(g.stream().mapToDouble(Double::doubleValue).toArray()))
                .toArray();
        }
    }

    /** f of each element of x. */
    static double[] map(Tensor x, DoubleUnaryOperator f) {
        double[] y = new double[(int) x.elementCount()];
        for (int i = 0; i < y.length; i++) y[i] = f.applyAsDouble(x.getFloat(i));
        return y;
    }

    /**
     * GroupNormalization of x (N x C x ...): each group's mean and population variance from its elements, then
     * (x - mean) / sqrt(variance + epsilon) times scale plus bias, taken per group or per channel.
     */
    static double[] groupNormalization(Tensor x, int groups, Tensor scale, Tensor bias, boolean perChannel, double epsilon) {
        long[] shape = x.shape();
        int channels = (int) shape[1];
        int spatial = (int) (x.elementCount() / shape[0] / channels);
        int perGroup = channels / groups;
        double[] y = new double[(int) x.elementCount()];
        for (int n = 0; n < shape[0]; n++) {
            for (int g = 0; g < groups; g++) {
                int from = (n * channels + g * perGroup) * spatial, to = from + perGroup * spatial;
                double[] e = new double[to - from];
                for (int i = from; i < to; i++) e[i - from] = x.getFloat(i);
                double mean = Arrays.stream(e).average().orElseThrow();
                double variance = Arrays.stream(e).map(v -> (v - mean) * (v - mean)).average().orElseThrow();
                for (int i = from; i < to; i++) {
                    int parameter = perChannel ? g * perGroup + (i - from) / spatial : g;
                    y[i] = (x.getFloat(i) - mean) / Math.sqrt(variance + epsilon) * scale.getFloat(parameter) + bias.getFloat(parameter);
                }
            }
        }
        return y;
    }
}
