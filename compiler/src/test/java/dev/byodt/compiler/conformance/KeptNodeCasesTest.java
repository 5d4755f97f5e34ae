package dev.byodt.compiler.conformance;

import dev.byodt.compiler.CompileOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The ONNX backend node cases kept in src/test/resources because ../shared/onnx-node has none of them (each
 * folder's SOURCE.md says how they were made): LSTM, GRU and RNN; Resize and Upsample; the shape and indexing
 * operators (ONNX's cases that need only the element types byodt has); the activations, Hardmax and reductions;
 * the comparison and logic operators, Where, IsNaN, IsInf, Sign, Mod and Dropout;
 * Sin, Cos, Floor, Ceil and Round; QLinearMatMul, QLinearConv and DynamicQuantizeLinear. At the tolerance
 * of the other node cases every one passes, compiled and in the interpreter.
 */
class KeptNodeCasesTest {
    private static final double RTOL = 1e-4, ATOL = 1e-5;

    @ParameterizedTest(name = "{0}")
    @CsvSource({"onnx-node-recurrent, 12", "onnx-node-images, 23", "onnx-node-indexing, 95", "onnx-node-math, 56",
        "onnx-node-logic, 63", "onnx-node-elementwise, 9", "onnx-node-quantized, 9"})
    void everyCasePassesCompiled(String folder, int cases) {
        assertAllPass(folder, cases, GraphExecutor.compiled(CompileOptions.host()));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"onnx-node-recurrent, 12", "onnx-node-images, 23", "onnx-node-indexing, 95", "onnx-node-math, 56",
        "onnx-node-logic, 63", "onnx-node-elementwise, 9", "onnx-node-quantized, 9"})
    void everyCasePassesInTheInterpreter(String folder, int cases) {
        assertAllPass(folder, cases, GraphInterpreter::run);
    }

    private static void assertAllPass(String folder, int cases, GraphExecutor executor) {
        Path dir = Path.of("src/test/resources", folder);
        Tally tally = new ConformanceRunner(RTOL, ATOL, executor).runAll(dir, r -> { });
        assertEquals(cases, tally.results().size(), "cases in " + dir);
        List<String> notPassed = tally.results().stream().filter(r -> r.outcome() != CaseResult.Outcome.PASSED)
            .map(r -> r.name() + ": " + r.outcome() + " " + r.detail()).toList();
        assertEquals(List.of(), notPassed);
    }
}
