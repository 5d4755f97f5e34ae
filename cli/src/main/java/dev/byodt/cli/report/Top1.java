package dev.byodt.cli.report;

/** The predicted class of one item's scores. */
public final class Top1 {
    /** What {@link #argmax} returns when every score is NaN: no class, which never matches a label. */
    public static final int NONE = -1;

    private Top1() {}

    /**
     * The index (from {@code from}, counted from 0) of the largest of {@code length} scores; the first one on
     * ties. NaN (a NaR output) never wins, so a datatype that produces NaN is not credited with class 0.
     */
    public static int argmax(float[] scores, int from, int length) { return argmax(scores, from, length, 1); }

    /** As {@link #argmax(float[], int, int)}, over scores {@code stride} elements apart (a class axis that is not the last). */
    public static int argmax(float[] scores, int from, int length, int stride) {
        int best = NONE;
        for (int i = 0; i < length; i++) {
            float v = scores[from + i * stride];
            if (!Float.isNaN(v) && (best == NONE || v > scores[from + best * stride])) best = i;
        }
        return best;
    }
}
