package dev.byodt.cli.sweep;

import dev.byodt.cli.report.ComparisonReport;
import dev.byodt.cli.report.ReportEntry;
import dev.byodt.cli.report.RunSetup;
import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Joins the reports of a sharded sweep (`byodt sweep merge`) into the report the whole sweep would have
 * written: entries back in sweep order. The shards must come from the same sweep (same model, data,
 * reference, target, byodt version and sweep size), together cover every configuration, and not overlap.
 */
public final class SweepMerge {
    private static final int MISSING_SHOWN = 10;

    private SweepMerge() {}

    /** @param sources names of the reports, in the same order, for error messages */
    public static ComparisonReport merge(List<ComparisonReport> shards, List<String> sources) {
        if (shards.isEmpty()) throw new ByodtException("sweep merge needs at least one shard report");
        ComparisonReport first = shards.get(0);
        Map<Integer, ReportEntry> byIndex = new TreeMap<>();
        Map<Integer, String> origin = new TreeMap<>();
        for (int s = 0; s < shards.size(); s++) {
            ComparisonReport shard = shards.get(s);
            String source = sources.get(s);
            requireSameSweep(first, sources.get(0), shard, source);
            for (ReportEntry entry : shard.entries()) {
                if (entry.index() < 0 || entry.index() >= first.sweepSize()) {
                    throw new ByodtException(source + ": configuration " + entry.index() + " is outside the " + first.sweepSize() + "-configuration sweep");
                }
                String earlier = origin.putIfAbsent(entry.index(), source);
                if (earlier != null) {
                    throw new ByodtException(source + " and " + earlier + " both hold configuration " + entry.index() + " (" + entry.dtype() + ")");
                }
                byIndex.put(entry.index(), entry);
            }
        }
        List<Integer> missing = IntStream.range(0, first.sweepSize()).filter(i -> !byIndex.containsKey(i)).boxed().toList();
        if (!missing.isEmpty()) {
            throw new ByodtException("the shards cover " + byIndex.size() + " of " + first.sweepSize() + " configurations; missing "
                + missing.stream().limit(MISSING_SHOWN).map(String::valueOf).collect(Collectors.joining(", "))
                + (missing.size() > MISSING_SHOWN ? ", ..." : "") + " (is a shard report missing?)");
        }
        List<ReportEntry> entries = new ArrayList<>(byIndex.values());
        entries.sort(Comparator.comparingInt(ReportEntry::index));
        return new ComparisonReport(first.setup(), first.sweepSize(), null, entries);
    }

    private static void requireSameSweep(ComparisonReport first, String firstSource, ComparisonReport other, String source) {
        RunSetup a = first.setup(), b = other.setup();
        String differs = !a.modelSha256().equals(b.modelSha256()) ? "model (sha256 " + b.modelSha256() + " vs " + a.modelSha256() + ")"
            : !a.data().equals(b.data()) ? "data (" + b.data() + " vs " + a.data() + ")"
            : !a.reference().equals(b.reference()) ? "reference (" + b.reference() + " vs " + a.reference() + ")"
            : !a.target().equals(b.target()) ? "target (" + b.target() + " vs " + a.target() + ")"
            : !Objects.equals(a.multiplyAdd(), b.multiplyAdd()) ? "multiply-add (" + b.multiplyAdd() + " vs " + a.multiplyAdd() + ")"
            : !a.byodtVersion().equals(b.byodtVersion()) ? "byodt version (" + b.byodtVersion() + " vs " + a.byodtVersion() + ")"
            : first.sweepSize() != other.sweepSize() ? "sweep size (" + other.sweepSize() + " vs " + first.sweepSize() + ")"
            : null;
        if (differs != null) throw new ByodtException(source + " comes from a different sweep than " + firstSource + ": its " + differs + " differs");
    }
}
