package dev.byodt.compiler.conformance;

import dev.byodt.compiler.CompileOptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The ONNX backend node cases of LSTM, GRU and RNN (src/test/resources/onnx-node-recurrent, see its
 * SOURCE.md), at the tolerance of the other node cases: every one passes, compiled and in the interpreter.
 */
class RecurrentNodeCasesTest {
    private static final Path CASES = Path.of("src/test/resources/onnx-node-recurrent");
    private static final double RTOL = 1e-4, ATOL = 1e-5;

    @Test
    void everyCasePassesCompiled() {
        assertAllPass(GraphExecutor.compiled(CompileOptions.host()));
    }

    @Test
    void everyCasePassesInTheInterpreter() {
        assertAllPass(GraphInterpreter::run);
    }

    private static void assertAllPass(GraphExecutor executor) {
        Tally tally = new ConformanceRunner(RTOL, ATOL, executor).runAll(CASES, r -> { });
        assertEquals(12, tally.results().size(), "cases in " + CASES);
        List<String> notPassed = tally.results().stream().filter(r -> r.outcome() != CaseResult.Outcome.PASSED)
            .map(r -> r.name() + ": " + r.outcome() + " " + r.detail()).toList();
        assertEquals(List.of(), notPassed);
    }
}
