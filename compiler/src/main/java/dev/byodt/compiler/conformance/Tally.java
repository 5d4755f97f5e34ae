package dev.byodt.compiler.conformance;

import java.util.List;

/** The results of a conformance run, counted by outcome. */
public record Tally(List<CaseResult> results) {
    public Tally {
        results = List.copyOf(results);
    }

    public long count(CaseResult.Outcome outcome) {
        return results.stream().filter(r -> r.outcome() == outcome).count();
    }

    public List<CaseResult> with(CaseResult.Outcome outcome) {
        return results.stream().filter(r -> r.outcome() == outcome).toList();
    }

    /** "612 passed, 50 unsupported, 0 failed (662 cases)" */
    public String summary() {
        return String.format("%d passed, %d unsupported, %d failed (%d cases)", count(CaseResult.Outcome.PASSED),
            count(CaseResult.Outcome.UNSUPPORTED), count(CaseResult.Outcome.FAILED), results.size());
    }
}
