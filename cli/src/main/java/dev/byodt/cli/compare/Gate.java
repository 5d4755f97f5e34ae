package dev.byodt.cli.compare;

import dev.byodt.cli.report.Figures;
import dev.byodt.cli.report.ReportEntry;
import dev.byodt.cli.report.Top1Figures;
import dev.byodt.runtime.ByodtException;

import java.util.Locale;
import java.util.Optional;

/**
 * The accuracy thresholds of --min-accuracy P (the datatype's top-1 must be at least P percent) and
 * --max-drop P (it may lose at most P percentage points against float32), checked on the first output.
 * A configuration that failed to compile violates any gate.
 */
public record Gate(Double minAccuracy, Double maxDrop) {
    public Gate {
        if (minAccuracy != null && !(minAccuracy >= 0 && minAccuracy <= 100)) throw new ByodtException("--min-accuracy " + minAccuracy + " is not a percentage in 0..100");
        if (maxDrop != null && !(maxDrop >= 0)) throw new ByodtException("--max-drop " + maxDrop + " must be a non-negative number of points");
    }

    public boolean isSet() { return minAccuracy != null || maxDrop != null; }

    /** Why {@code entry} fails the gate, in one line, or empty when it passes. */
    public Optional<String> violation(ReportEntry entry) {
        if (!isSet()) return Optional.empty();
        String who = entry.dtype() + " (accumulate " + entry.accumulate() + ", rounding " + entry.rounding() + ")";
        if (!entry.succeeded()) return Optional.of(who + " failed: " + entry.failure());
        Top1Figures top1 = entry.outputs().get(0).top1();
        if (top1.testAccuracy() == null) throw new ByodtException("--min-accuracy and --max-drop need labelled data; this data has no labels");
        double accuracy = 100 * top1.testAccuracy();
        if (minAccuracy != null && accuracy < minAccuracy) {
            return Optional.of(String.format(Locale.ROOT, "%s top-1 %s is below --min-accuracy %.2f%%", who, Figures.percent(top1.testAccuracy()), minAccuracy));
        }
        if (maxDrop != null && top1.drop() > maxDrop) {
            return Optional.of(String.format(Locale.ROOT, "%s loses %.2f points against float32, more than --max-drop %.2f", who, top1.drop(), maxDrop));
        }
        return Optional.empty();
    }
}
