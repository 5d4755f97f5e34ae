package dev.byodt.compiler.conformance;

import ai.onnxruntime.OrtException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Every ONNX backend node case through the whole pipeline (load, O3, JIT, run): each case byodt compiles must
 * match its expected outputs (rtol 1e-4, atol 1e-5); the others must be refused at compile time with a reason.
 */
@Execution(ExecutionMode.CONCURRENT)
class PipelineConformanceTest {
    @Test
    void everyCompilableCaseMatchesItsExpectedOutputs() throws OrtException {
        NodeCaseRuns.COMPILED.assertConforms();
    }

    /** The same with every float32 multiply-add fused: other last bits, within the same tolerance. */
    @Tag("exhaustive")
    @Test
    void everyCompilableCaseMatchesItsExpectedOutputsWithFusedMultiplyAdds() throws OrtException {
        NodeCaseRuns.COMPILED_FUSED.assertConforms();
    }
}
