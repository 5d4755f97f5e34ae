package dev.byodt.compiler.conformance;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorDiff;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Runs ONNX backend test cases through the whole pipeline (load, compile, JIT, run) and compares with their
 * expected outputs. A case byodt refuses at load or compile time counts as unsupported, with the reason;
 * a case that compiles but computes a wrong result, or crashes the compiler, counts as failed.
 */
public final class ConformanceRunner {
    private final double rtol;
    private final double atol;

    public ConformanceRunner(double rtol, double atol) {
        this.rtol = rtol;
        this.atol = atol;
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

    /**
     * Compiles the model for one data set and runs it, or returns null when it passes. Integer inputs are
     * bound at compile time: ONNX test cases feed shapes and axes as inputs, and byodt compiles static shapes.
     */
    private CaseResult runDataSet(String name, Path modelFile, TestCase.DataSet set) {
        Graph graph;
        List<NamedTensor> runTimeInputs = set.inputs().stream().filter(t -> !isBindable(t)).toList();
        try {
            Map<String, Tensor> bound = new LinkedHashMap<>();
            set.inputs().stream().filter(ConformanceRunner::isBindable).forEach(t -> bound.put(t.name(), t.tensor()));
            graph = OnnxLoader.load(modelFile, Map.of(), bound);
        } catch (ByodtException e) {
            return new CaseResult(name, CaseResult.Outcome.UNSUPPORTED, e.getMessage());
        } catch (RuntimeException e) {
            return new CaseResult(name, CaseResult.Outcome.FAILED, "loading crashed: " + e);
        }
        try (CompiledModule module = Compiler.compile(graph, CompileOptions.host());
             HostModel model = Compiler.jit(module)) {
            String problem = check(model, runTimeInputs, set);
            return problem == null ? null : new CaseResult(name, CaseResult.Outcome.FAILED, problem);
        } catch (ByodtException e) {
            return new CaseResult(name, CaseResult.Outcome.UNSUPPORTED, e.getMessage());
        } catch (RuntimeException e) {
            return new CaseResult(name, CaseResult.Outcome.FAILED, "compiling or running crashed: " + e);
        }
    }

    private static boolean isBindable(NamedTensor t) {
        return t.tensor().type().isInteger() && !t.name().isEmpty();
    }

    /** Null when every output is within tolerance, else what differs. */
    private String check(HostModel model, List<NamedTensor> runTimeInputs, TestCase.DataSet set) {
        List<Tensor> inputs = runTimeInputs.stream().map(NamedTensor::tensor).toList();
        List<Tensor> actual = model.run(inputs);
        if (actual.size() < set.outputs().size()) {
            return set.dir().getFileName() + ": model has " + actual.size() + " outputs, expected " + set.outputs().size();
        }
        for (int i = 0; i < set.outputs().size(); i++) {
            TensorDiff diff = TensorDiff.of(set.outputs().get(i).tensor(), actual.get(i), rtol, atol);
            if (!diff.withinTolerance()) {
                return set.dir().getFileName() + " output " + i + " '" + model.outputs().get(i).name() + "': " + diff.describe();
            }
        }
        return null;
    }
}
