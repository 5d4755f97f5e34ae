package dev.byodt.compiler.conformance;

import dev.byodt.compiler.CompileOptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/**
 * The ONNX backend node cases of LSTM, GRU and RNN (src/test/resources/onnx-node-recurrent, see its
 * SOURCE.md), at the tolerance of the other node cases: every one passes, compiled and in the interpreter.
 */
class RecurrentNodeCasesTest {
    private static final Path CASES = Path.of("src/test/resources/onnx-node-recurrent");

    @Test
    void everyCasePassesCompiled() {
        NodeCaseFolders.assertAllPass(CASES, 12, GraphExecutor.compiled(CompileOptions.host()));
    }

    @Test
    void everyCasePassesInTheInterpreter() {
        NodeCaseFolders.assertAllPass(CASES, 12, GraphInterpreter::run);
    }
}
