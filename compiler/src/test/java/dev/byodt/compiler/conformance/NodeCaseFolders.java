package dev.byodt.compiler.conformance;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Folders of ONNX node cases kept in the tests, whose every case must pass, at the tolerance of the other node cases. */
final class NodeCaseFolders {
    private static final double RTOL = 1e-4, ATOL = 1e-5;

    private NodeCaseFolders() {}

    static void assertAllPass(Path cases, int count, GraphExecutor executor) {
        Tally tally = new ConformanceRunner(RTOL, ATOL, executor).runAll(cases, r -> { });
        assertEquals(count, tally.results().size(), "cases in " + cases);
        List<String> notPassed = tally.results().stream().filter(r -> r.outcome() != CaseResult.Outcome.PASSED)
            .map(r -> r.name() + ": " + r.outcome() + " " + r.detail()).toList();
        assertEquals(List.of(), notPassed);
    }
}
