package dev.byodt.compiler.ops;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Where Resize reads along one axis: for each output index, the input indices of its taps and their weights,
 * worked out at compile time in double precision the way ONNX's reference implementation does (the output
 * index mapped back to a real input coordinate by the coordinate transformation mode, the taps nearest to it
 * on the input padded by repeating its edges, the weights from the fraction past the lower tap), so that only
 * the weighted sums are left for run time, in the datatype.
 */
final class ResizeAxis {
    /** The attributes that decide the sampling, shared by every axis of a node. */
    record Sampling(String mode, String coordinateMode, String nearestMode, double cubicA, boolean excludeOutside,
                    boolean antialias) {}

    private final long inputSize;
    private final int taps;
    private final long[] index;
    private final double[] weight;
    private final boolean[] inside;

    private ResizeAxis(long inputSize, int taps, long[] index, double[] weight, boolean[] inside) {
        this.inputSize = inputSize;
        this.taps = taps;
        this.index = index;
        this.weight = weight;
        this.inside = inside;
    }

    /**
     * The sampling of an axis of {@code inputSize} elements resized to {@code outputSize} by {@code scale};
     * {@code outputWidth} is the reference's scale * inputSize (in float32 where the scale was a float32 input),
     * roi the axis's region of interest as fractions of the input, used by tf_crop_and_resize.
     */
    static ResizeAxis of(Sampling s, long inputSize, long outputSize, double scale, double outputWidth, float roiStart,
                         float roiEnd) {
        int taps = -1;
        long[] index = null;
        double[] weight = null;
        boolean[] inside = new boolean[Math.toIntExact(outputSize)];
        for (int o = 0; o < outputSize; o++) {
            double x = inputCoordinate(s.coordinateMode(), o, inputSize, outputSize, scale, outputWidth, roiStart, roiEnd);
            inside[o] = !s.coordinateMode().equals("tf_crop_and_resize") || (x >= 0 && x <= inputSize - 1);
            // The fraction past the tap below x, in (0, 1]: a whole x counts as 1 past the tap before it.
            double ratio = x == Math.floor(x) ? 1 : x - Math.floor(x);
            double[] coefficients = coefficients(s, ratio, scale);
            if (index == null) {
                taps = coefficients.length;
                index = new long[Math.toIntExact(outputSize * taps)];
                weight = new double[index.length];
            }
            long[] neighbours = neighbours(x, taps, inputSize);
            if (s.excludeOutside()) {
                double sum = 0;
                for (int t = 0; t < taps; t++) {
                    if (neighbours[t] < 0 || neighbours[t] >= inputSize) coefficients[t] = 0;
                    sum += coefficients[t];
                }
                for (int t = 0; t < taps; t++) coefficients[t] /= sum;
            }
            for (int t = 0; t < taps; t++) {
                index[o * taps + t] = Math.clamp(neighbours[t], 0, inputSize - 1);
                weight[o * taps + t] = inside[o] ? coefficients[t] : 0;
            }
        }
        return new ResizeAxis(inputSize, taps, index, weight, inside);
    }

    private static double inputCoordinate(String mode, long x, long inputSize, long outputSize, double scale,
                                          double outputWidth, float roiStart, float roiEnd) {
        return switch (mode) {
            case "align_corners" -> outputWidth == 1 ? 0 : x * (double) (inputSize - 1) / (outputWidth - 1);
            case "asymmetric" -> x / scale;
            case "tf_crop_and_resize" -> {
                // The reference multiplies roi's float32 values by sizes in float32 where no index takes part.
                float span = roiEnd - roiStart;
                float start = roiStart * (inputSize - 1);
                yield (outputWidth == 1 ? span * (inputSize - 1) / 2 : x * (double) span * (inputSize - 1) / (outputWidth - 1))
                    + start;
            }
            case "pytorch_half_pixel" -> outputWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
            case "half_pixel" -> (x + 0.5) / scale - 0.5;
            case "half_pixel_symmetric" -> {
                // The centre of the region the output covers maps to the centre of the input, which differs from
                // half_pixel only when the output size was rounded from scale * input.
                double adjustment = outputSize / outputWidth;
                double centre = inputSize / 2.0;
                yield centre * (1 - adjustment) + (x + 0.5) / scale - 0.5;
            }
            default -> throw new IllegalStateException(mode);
        };
    }

    private static double[] coefficients(Sampling s, double ratio, double scale) {
        return switch (s.mode()) {
            case "nearest" -> nearest(s.nearestMode(), ratio);
            case "linear" -> s.antialias() ? antialiased(ratio, scale, 1, ResizeAxis::triangle)
                : new double[] {1 - ratio, ratio};
            case "cubic" -> s.antialias() ? antialiased(ratio, scale, 2, d -> cubic(d, s.cubicA()))
                : new double[] {cubic(ratio + 1, s.cubicA()), cubic(ratio, s.cubicA()), cubic(1 - ratio, s.cubicA()),
                    cubic(2 - ratio, s.cubicA())};
            default -> throw new IllegalStateException(s.mode());
        };
    }

    /** Weight 1 on the lower or the upper of the two taps around the coordinate. */
    private static double[] nearest(String mode, double ratio) {
        if (ratio == 1) return new double[] {0, 1};
        boolean upper = switch (mode) {
            case "round_prefer_floor" -> ratio > 0.5;
            case "round_prefer_ceil" -> ratio >= 0.5;
            case "floor" -> false;
            case "ceil" -> true;
            default -> throw new IllegalStateException(mode);
        };
        return upper ? new double[] {0, 1} : new double[] {1, 0};
    }

    private static double triangle(double d) { return Math.clamp(1 - Math.abs(d), 0, 1); }

    /** Keys' cubic convolution kernel with parameter a, at distance d. */
    private static double cubic(double d, double a) {
        double x = Math.abs(d);
        if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
        if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
        return 0;
    }

    private interface Kernel {
        double at(double distance);
    }

    /**
     * Downsampling with antialias stretches the kernel by 1/scale, so that each output averages every input
     * it covers: more taps, normalised to sum to 1. Upsampling keeps the kernel as it is.
     */
    private static double[] antialiased(double ratio, double scale, int support, Kernel kernel) {
        double stretch = Math.min(scale, 1);
        long start = (long) Math.floor(-support / stretch) + 1;
        int count = Math.toIntExact(2 - 2 * start);
        double[] c = new double[count];
        double sum = 0;
        for (int i = 0; i < count; i++) {
            c[i] = kernel.at(stretch * (start + i - ratio));
            sum += c[i];
        }
        for (int i = 0; i < count; i++) c[i] /= sum;
        return c;
    }

    /**
     * The {@code n} taps nearest to coordinate x, ties to the lower, in ascending order, among the input padded
     * by ceil(n/2) repeated edge elements on each side (so they may lie outside the input).
     */
    private static long[] neighbours(double x, int n, long inputSize) {
        long pad = (n + 1) / 2;
        double padded = x + pad;
        long limit = inputSize + 2 * pad;
        long centre = (long) Math.floor(padded);
        List<Long> candidates = new ArrayList<>();
        for (long i = Math.max(0, centre - n); i <= Math.min(limit - 1, centre + n + 1); i++) candidates.add(i);
        candidates.sort(Comparator.<Long>comparingDouble(i -> Math.abs(padded - i)).thenComparingLong(i -> i));
        long[] chosen = candidates.stream().limit(n).mapToLong(i -> i - pad).toArray();
        Arrays.sort(chosen);
        return chosen;
    }

    long inputSize() { return inputSize; }

    long outputSize() { return inside.length; }

    int taps() { return taps; }

    /** Whether output index o maps inside the input; false only for tf_crop_and_resize outside its roi. */
    boolean inside(int o) { return inside[o]; }

    boolean allInside() {
        for (boolean b : inside) if (!b) return false;
        return true;
    }

    /** The input index of tap t of output o, clamped to the input (the edge repeated). */
    long index(int o, int t) { return index[o * taps + t]; }

    double weight(int o, int t) { return weight[o * taps + t]; }

    /**
     * The single tap with weight exactly 1 of each output, the others 0, or null when some output mixes taps:
     * then this axis only selects, and moves its input's bits without arithmetic.
     */
    long[] selection() {
        long[] selected = new long[inside.length];
        for (int o = 0; o < inside.length; o++) {
            int chosen = -1;
            for (int t = 0; t < taps; t++) {
                double w = weight(o, t);
                if (w == 0) continue;
                if (w != 1 || chosen >= 0) return null;
                chosen = t;
            }
            selected[o] = chosen < 0 ? 0 : index(o, chosen);
        }
        return selected;
    }
}
