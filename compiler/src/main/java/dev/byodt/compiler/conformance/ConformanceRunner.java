package dev.byodt.compiler.conformance;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.ByodtException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Runs ONNX backend test cases through the whole pipeline (load, compile, JIT, run), or through another
 * {@link GraphExecutor} after loading, and compares with their expected outputs. A case byodt refuses at
 * load or compile time counts as unsupported, with the reason; a case that compiles but computes a wrong
 * result, or crashes the compiler, counts as failed.
 */
public final class ConformanceRunner {
    private final double rtol;
    private final double atol;
    private final GraphExecutor executor;

    public ConformanceRunner(double rtol, double atol) {
        this(rtol, atol, GraphExecutor.compiled(CompileOptions.host()));
    }

    /** Runs the loaded cases with another executor than the compiled pipeline for the host. */
    public ConformanceRunner(double rtol, double atol, GraphExecutor executor) {
        this.rtol = rtol;
        this.atol = atol;
        this.executor = executor;
    }

    /** Every case folder (one holding model.onnx) directly below dir, in name order. */
    public static List<Path> caseFolders(Path dir) {
        if (!Files.isDirectory(dir)) throw new ByodtException(dir + ": not a folder of ONNX test cases");
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> Files.isRegularFile(p.resolve("model.onnx"))).sorted().toList();
        } catch (IOException e) {
            throw new ByodtException(dir + ": cannot list the folder (" + e.getMessage() + ")");
        }
    }

    public Tally runAll(Path dir, Consumer<CaseResult> progress) {
        List<CaseResult> results = new ArrayList<>();
        for (Path caseDir : caseFolders(dir)) {
            CaseResult r = runCase(caseDir);
            progress.accept(r);
            results.add(r);
        }
        return new Tally(results);
    }

    public CaseResult runCase(Path caseDir) {
        String name = caseDir.getFileName().toString();
        TestCase testCase;
        try {
            testCase = TestCase.load(caseDir);
        } catch (ByodtException dataProblem) {
            return new CaseResult(name, CaseResult.Outcome.UNSUPPORTED, modelProblemOr(caseDir, dataProblem));
        }
        for (TestCase.DataSet set : testCase.dataSets()) {
            CaseResult problem = runDataSet(name, testCase.model(), set);
            if (problem != null) return problem;
        }
        return new CaseResult(name, CaseResult.Outcome.PASSED, "");
    }

    /** A case's data can hold types byodt lacks; the model's own problems, if any, say more. */
    private static String modelProblemOr(Path caseDir, ByodtException dataProblem) {
        try {
            OnnxLoader.load(caseDir.resolve("model.onnx"));
        } catch (ByodtException modelProblem) {
            return modelProblem.getMessage();
        } catch (RuntimeException ignored) {
            // A crash while loading is reported when the case runs; here only the data's problem is known.
        }
        return dataProblem.getMessage();
    }

    /** Null when the data set passes, else the case's result. */
    private CaseResult runDataSet(String name, Path modelFile, TestCase.DataSet set) {
        List<DataSetRun.OutputCheck> checks;
        try {
            checks = DataSetRun.run(modelFile, Map.of(), Map.of(), executor, set, rtol, atol);
        } catch (ByodtException e) {
            return new CaseResult(name, CaseResult.Outcome.UNSUPPORTED, e.getMessage());
        } catch (RuntimeException e) {
            return new CaseResult(name, CaseResult.Outcome.FAILED, "crashed: " + e);
        }
        for (DataSetRun.OutputCheck check : checks) {
            if (!check.diff().withinTolerance()) {
                return new CaseResult(name, CaseResult.Outcome.FAILED, set.dir().getFileName() + " output " + check.index()
                    + " '" + check.name() + "': " + check.diff().describe());
            }
        }
        return null;
    }
}
