package dev.byodt.cli.isolation;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Holds back, line by line, what a crashing JVM prints to its standard output, so that the parent prints one
 * line of its own instead: the banner (a line "#", then {@link #BANNER_START}, and everything after it) and
 * the line each further thread that faults meanwhile prints ("[thread 123 also had an error]"). Those threads
 * run in parallel with the one reporting, so their line may come before the banner, between its "#" and its
 * first sentence, or in the middle of a line; the rest of the child's output passes unchanged.
 */
final class CrashBannerFilter {
    private static final String BANNER_START = "# A fatal error has been detected by the Java Runtime Environment";
    private static final Pattern OTHER_THREAD = Pattern.compile("\\[thread \\d+ also had an error\\]");

    private boolean pendingHash;
    private boolean inBanner;

    /** The lines to print now that the child printed {@code line}: none, the line, or a held-back "#" and the line. */
    List<String> accept(String line) {
        List<String> print = new ArrayList<>(2);
        if (inBanner) return print;
        String own = OTHER_THREAD.matcher(line).replaceAll("");
        if (own.isEmpty() && !line.isEmpty()) return print;
        if (own.startsWith(BANNER_START)) {
            inBanner = true;
            pendingHash = false;
            return print;
        }
        if (pendingHash) print.add("#");
        pendingHash = own.equals("#");
        if (!pendingHash) print.add(own);
        return print;
    }

    /** What is still held back when the child's output ends: a last "#" that began no banner. */
    List<String> finish() {
        return pendingHash && !inBanner ? List.of("#") : List.of();
    }
}
