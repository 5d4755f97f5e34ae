package dev.byodt.cli.chart;

import java.awt.Color;

/** The colours of a chart's lines, in order: distinct on white and in print (matplotlib's first ten). */
public final class SeriesColours {
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd),
        new Color(0xff7f0e), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf), new Color(0x7f7f7f), new Color(0xbcbd22)};

    private SeriesColours() {}

    /** The colour of line {@code series} (from 0); after ten the colours repeat. */
    public static Color of(int series) { return PALETTE[series % PALETTE.length]; }

    /** How many lines get a colour of their own. */
    public static int count() { return PALETTE.length; }
}
