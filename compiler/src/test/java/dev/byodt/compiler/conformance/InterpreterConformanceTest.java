package dev.byodt.compiler.conformance;

import ai.onnxruntime.OrtException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every ONNX backend node case loaded by OnnxLoader (integer inputs bound at compile time, as the pipeline
 * binds them) and run kernel by kernel in the interpreter: a second executor of the kernels the compiler
 * emits, which must reproduce the expected outputs (rtol 1e-4, atol 1e-5, element types and the inferred
 * shapes included) and come to the same outcome as the compiled pipeline on every case.
 */
class InterpreterConformanceTest {
    @Test
    void everyLoadableCaseMatchesItsExpectedOutputs() throws OrtException {
        NodeCaseRuns.INTERPRETED.assertConforms();
    }

    /** A case the compiled code passes and the interpreter does not, or the other way round, is a bug in one. */
    @Test
    void theInterpreterAndTheCompiledPipelineAgreeOnEveryCase() {
        List<CaseResult> compiled = NodeCaseRuns.COMPILED.tally().results();
        List<CaseResult> interpreted = NodeCaseRuns.INTERPRETED.tally().results();
        assertEquals(compiled.size(), interpreted.size());
        List<String> disagreements = new ArrayList<>();
        for (int i = 0; i < compiled.size(); i++) {
            CaseResult c = compiled.get(i), r = interpreted.get(i);
            if (c.outcome() != r.outcome()) {
                disagreements.add(c.name() + ": compiled " + c.outcome() + " " + c.detail() + "; interpreted " + r.outcome() + " " + r.detail());
            }
        }
        assertEquals(List.of(), disagreements);
    }
}
