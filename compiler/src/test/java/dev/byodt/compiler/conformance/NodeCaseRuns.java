package dev.byodt.compiler.conformance;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorDiff;

import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ONNX backend node cases run through the loader and then one executor of the loaded graphs. Each
 * executor runs them once per test JVM, as the conformance tests both check its tally and compare the two.
 */
enum NodeCaseRuns {
    COMPILED("compiled pipeline (O3, JIT)", GraphExecutor.compiled(CompileOptions.host())),
    COMPILED_FUSED("compiled pipeline, --multiply-add fused", GraphExecutor.compiled(CompileOptions.host().withMultiplyAdd(MultiplyAdd.FUSED))),
    INTERPRETED("kernel interpreter", GraphInterpreter::run);

    private static final Path CASES = Path.of(System.getProperty("byodt.onnxNodeDir", "../../shared/onnx-node"));
    private static final double RTOL = 1e-4, ATOL = 1e-5;

    /**
     * Cases whose stored outputs were typed into the ONNX repository by hand with four decimals, which is
     * coarser than the tolerance (ONNX's own runner checks at rtol 1e-3). For these the reference is ONNX
     * Runtime, at the same tolerance, and the stored values must agree with it to their own precision: one
     * unit in the fourth decimal.
     */
    private static final Map<String, Double> ROUNDED_EXPECTED_OUTPUTS =
        Map.of("test_averagepool_2d_ceil_last_window_starts_on_pad", 1e-4);

    private final String description;
    private final GraphExecutor executor;
    private Tally tally;

    NodeCaseRuns(String description, GraphExecutor executor) {
        this.description = description;
        this.executor = executor;
    }

    /** Every case run by this executor, the first time it is asked for; the tally is printed with the time it took. */
    synchronized Tally tally() {
        if (tally == null) {
            long start = System.nanoTime();
            tally = new ConformanceRunner(RTOL, ATOL, executor).runAll(CASES, r -> { });
            System.out.printf("ONNX node conformance, %s: %s in %.1f s%n", description, tally.summary(),
                (System.nanoTime() - start) / 1e9);
        }
        return tally;
    }

    /**
     * All 662 cases: each refused one with a reason; each run one matching its expected outputs, or, for
     * the cases with rounded expected outputs, ONNX Runtime's; and every case pinned in expected-passing.txt
     * passes, while those that pass unpinned are printed.
     */
    void assertConforms() throws OrtException {
        Tally all = tally();
        for (CaseResult r : all.with(CaseResult.Outcome.UNSUPPORTED)) {
            System.out.println("  unsupported " + r.name() + ": " + r.detail());
            assertFalse(r.detail().isBlank(), r.name() + " refused without a reason");
        }
        assertEquals(662, all.results().size(), "cases found in " + CASES);
        assertPinnedCasesPass(all);
        List<String> failed = new ArrayList<>();
        for (CaseResult r : all.with(CaseResult.Outcome.FAILED)) {
            System.out.println("  failed against the stored outputs: " + r.name() + ": " + r.detail());
            Double storedPrecision = ROUNDED_EXPECTED_OUTPUTS.get(r.name());
            if (storedPrecision == null) failed.add(r.name() + ": " + r.detail());
            else checkAgainstOnnxRuntime(CASES.resolve(r.name()), storedPrecision);
        }
        assertEquals(List.of(), failed);
    }

    /**
     * Every case of expected-passing.txt passes (each one that does not is named with its outcome), and every
     * case with rounded expected outputs runs, since it is checked against ONNX Runtime only when it does.
     */
    private void assertPinnedCasesPass(Tally all) {
        List<String> passing = all.with(CaseResult.Outcome.PASSED).stream().map(CaseResult::name).toList();
        List<String> unpinned = ExpectedPassing.unpinnedIn(passing);
        if (!unpinned.isEmpty()) {
            System.out.println("  " + unpinned.size() + " cases pass that expected-passing.txt does not list "
                + "(scripts/pin-conformance adds them): " + String.join(" ", unpinned));
        }
        Map<String, CaseResult> byName = new LinkedHashMap<>();
        for (CaseResult r : all.results()) byName.put(r.name(), r);
        List<String> lost = new ArrayList<>();
        for (String name : ExpectedPassing.missingFrom(passing)) {
            CaseResult r = byName.get(name);
            lost.add(name + ": " + (r == null ? "not found in " + CASES : r.outcome().name().toLowerCase() + " " + r.detail()));
        }
        assertEquals(List.of(), lost, "cases of expected-passing.txt that no longer pass");
        for (String name : ROUNDED_EXPECTED_OUTPUTS.keySet()) {
            CaseResult r = byName.get(name);
            assertTrue(r != null && r.outcome() != CaseResult.Outcome.UNSUPPORTED,
                name + " is checked against ONNX Runtime and must run: " + (r == null ? "not found" : r.detail()));
        }
    }

    private void checkAgainstOnnxRuntime(Path caseDir, double storedPrecision) throws OrtException {
        TestCase testCase = TestCase.load(caseDir);
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession session = env.createSession(testCase.model().toString(), new OrtSession.SessionOptions())) {
            for (TestCase.DataSet set : testCase.dataSets()) {
                List<NamedTensor> ours = DataSetRun.outputs(testCase.model(), Map.of(), Map.of(), executor, set);
                Map<String, OnnxTensor> feeds = new LinkedHashMap<>();
                List<String> names = new ArrayList<>(session.getInputNames());
                for (int i = 0; i < names.size(); i++) {
                    Tensor t = set.inputs().get(i).tensor();
                    feeds.put(names.get(i), OnnxTensor.createTensor(env, FloatBuffer.wrap(t.toFloatArray()), t.shape()));
                }
                try (OrtSession.Result result = session.run(feeds)) {
                    for (int o = 0; o < ours.size(); o++) {
                        OnnxTensor theirs = (OnnxTensor) result.get(o);
                        Tensor reference = Tensor.zeros(ElementType.FLOAT32, theirs.getInfo().getShape());
                        FloatBuffer values = theirs.getFloatBuffer();
                        for (int i = 0; values.hasRemaining(); i++) reference.setFloat(i, values.get());
                        TensorDiff vsRuntime = TensorDiff.of(reference, ours.get(o).tensor(), RTOL, ATOL);
                        assertTrue(vsRuntime.withinTolerance(), caseDir.getFileName() + " against ONNX Runtime: " + vsRuntime.describe());
                        TensorDiff storedVsRuntime = TensorDiff.of(reference, set.outputs().get(o).tensor(), 0, storedPrecision);
                        assertTrue(storedVsRuntime.withinTolerance(),
                            caseDir.getFileName() + ": stored outputs are not merely rounded: " + storedVsRuntime.describe());
                    }
                } finally {
                    feeds.values().forEach(OnnxTensor::close);
                }
            }
        }
    }
}
