package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Per-channel normalization, x' = (x - mean[c]) / std[c] (--mean, --std), applied after a source's own
 * scaling. The channel is the item's first axis (items are C x H x W, as in NCHW models); one value
 * applies to every channel.
 */
public record Normalization(double[] mean, double[] std) {
    public Normalization {
        if (mean.length == 0 || std.length == 0) throw new ByodtException("--mean and --std need at least one value each");
        for (double s : std) {
            if (!(s > 0) || Double.isInfinite(s)) throw new ByodtException("--std " + s + " must be a positive finite number");
        }
        for (double m : mean) {
            if (!Double.isFinite(m)) throw new ByodtException("--mean " + m + " must be a finite number");
        }
        mean = mean.clone();
        std = std.clone();
    }

    /** Subtracting 0 and dividing by 1 for every channel, the defaults when only one of --mean and --std is given. */
    public static Normalization of(double[] meanOrNull, double[] stdOrNull) {
        return new Normalization(meanOrNull == null ? new double[] {0} : meanOrNull, stdOrNull == null ? new double[] {1} : stdOrNull);
    }

    /** Checks that the values fit an item with {@code channels} channels. */
    void requireChannels(long channels, String data) {
        for (double[] values : new double[][] {mean, std}) {
            if (values.length != 1 && values.length != channels) {
                throw new ByodtException("--mean/--std give " + values.length + " values but the items of " + data + " have "
                    + channels + " channels (give 1 value or " + channels + ")");
            }
        }
    }

    double mean(int channel) { return mean[mean.length == 1 ? 0 : channel]; }

    double std(int channel) { return std[std.length == 1 ? 0 : channel]; }

    /** "mean [0.5], std [0.25]", as reports print it. */
    public String describe() { return "mean " + list(mean) + ", std " + list(std); }

    private static String list(double[] values) {
        return Arrays.stream(values).mapToObj(v -> Double.toString(v)).collect(Collectors.joining(", ", "[", "]"));
    }

    @Override
    public double[] mean() { return mean.clone(); }

    @Override
    public double[] std() { return std.clone(); }
}
