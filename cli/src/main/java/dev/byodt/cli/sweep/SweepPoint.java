package dev.byodt.cli.sweep;

/**
 * One configuration of a sweep.
 *
 * @param index      its place in the whole sweep (0-based), which shards keep so merged results come back in order
 * @param dtype      the datatype name as the registry reads it
 * @param accumulate the accumulation mode (--accumulate)
 * @param rounding   the rounding mode (--rounding)
 */
public record SweepPoint(int index, String dtype, String accumulate, String rounding) {}
