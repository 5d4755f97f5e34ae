package dev.byodt.compiler.conformance;

import dev.byodt.compiler.CompileOptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/**
 * The ONNX backend node cases of the shape and indexing operators (src/test/resources/onnx-node-indexing, see
 * its SOURCE.md), at the tolerance of the other node cases: every one passes, compiled and in the interpreter.
 */
class IndexingNodeCasesTest {
    private static final Path CASES = Path.of("src/test/resources/onnx-node-indexing");
    private static final int COUNT = 77;

    @Test
    void everyCasePassesCompiled() {
        NodeCaseFolders.assertAllPass(CASES, COUNT, GraphExecutor.compiled(CompileOptions.host()));
    }

    @Test
    void everyCasePassesInTheInterpreter() {
        NodeCaseFolders.assertAllPass(CASES, COUNT, GraphInterpreter::run);
    }
}
