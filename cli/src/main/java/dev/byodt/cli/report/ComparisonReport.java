package dev.byodt.cli.report;

import java.util.List;

/**
 * The results of `byodt run` (one entry) or `byodt sweep` (one entry per configuration, or a shard's share).
 *
 * @param sweepSize the number of configurations in the whole sweep, so a merge can tell whether shards are missing
 * @param shard     "i/n" for one shard's results, null for a whole sweep or a run
 */
public record ComparisonReport(RunSetup setup, int sweepSize, String shard, List<ReportEntry> entries) {
    public ComparisonReport {
        entries = List.copyOf(entries);
    }
}
