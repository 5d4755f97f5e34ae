package dev.byodt.cli.chart;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a datatype goes on a sweep chart: its family (one line per family) and its position on the x axis.
 * Most datatypes are placed by total bit width ({@code custom[posit]12} is family "posit" at 12 bits,
 * {@code bfloat16} family "bfloat" at 16, {@code fp8e4m3} family "fp8e4m3" at 8). Fixed point is placed by
 * fraction bits instead ({@code fxp16_13} is family "fxp16" at 13), because a fixed-point sweep varies
 * P at one width; those go on their own chart.
 *
 * @param byFractionBits whether x counts fraction bits (fixed point) rather than total bits
 */
public record DatatypeAxis(String family, int x, boolean byFractionBits) {
    private static final Pattern FIXED = Pattern.compile("fxp(\\d+)_(\\d+)");
    private static final Pattern CUSTOM = Pattern.compile("custom\\[([A-Za-z0-9_]+)\\](\\d+)(x\\d+)?");
    private static final Pattern MINIFLOAT = Pattern.compile("fp(\\d+)(e\\d+m\\d+)");
    private static final Pattern NAME_AND_WIDTH = Pattern.compile("([A-Za-z_]+?)(\\d+)");

    /** The placement of a datatype name, or null when the name shows no bit width. */
    public static DatatypeAxis of(String dtype) {
        Matcher m;
        if ((m = FIXED.matcher(dtype)).matches()) return new DatatypeAxis("fxp" + m.group(1), Integer.parseInt(m.group(2)), true);
        if ((m = CUSTOM.matcher(dtype)).matches()) {
            String lanes = m.group(3) == null ? "" : m.group(3);
            return new DatatypeAxis(m.group(1) + lanes, Integer.parseInt(m.group(2)), false);
        }
        if ((m = MINIFLOAT.matcher(dtype)).matches()) return new DatatypeAxis("fp" + m.group(1) + m.group(2), Integer.parseInt(m.group(1)), false);
        if ((m = NAME_AND_WIDTH.matcher(dtype)).matches()) return new DatatypeAxis(m.group(1), Integer.parseInt(m.group(2)), false);
        return null;
    }
}
